import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { errorText } from '../api/client';
import { ErrorMessage } from '../app/page';
import { Link } from '../app/router';
import { Notice } from '../app/ui';
import { collectionKey, createSubscription, type Collection } from './subscriptions';
import type { Endpoint, Filter } from './queries';

// A new subscription: an endpoint of the member's own, and for a Space which
// of its events should wake it. The filter offers the common cases as choices
// (docs/webhooks.md, "Filters"); the API takes more, which the CLI can send.

type Choice = 'all' | 'prefix' | 'exact' | 'channel' | 'task';

function filterFor(choice: Choice, value: string): Filter | undefined {
  const v = value.trim();
  switch (choice) {
    case 'all':
      return undefined;
    case 'prefix':
      return { any: [{ event_types: [{ prefix: v }] }] };
    case 'exact':
      return { any: [{ event_types: [{ exact: v }] }] };
    case 'channel':
      return { any: [{ subject: { channel: v } }] };
    case 'task':
      return { any: [{ subject: { task: Number(v) } }] };
  }
}

const CHOICES: Array<{ value: Choice; label: string; field?: string; hint?: string }> = [
  { value: 'all', label: 'Every event of the Space I may read' },
  { value: 'prefix', label: 'Events whose type starts with…', field: 'Type prefix', hint: 'For example task_ or message_' },
  { value: 'exact', label: 'Events of one type…', field: 'Event type', hint: 'For example message_posted' },
  { value: 'channel', label: 'Messages in one channel…', field: 'Channel name' },
  { value: 'task', label: "One task's events and discussion…", field: 'Task number' },
];

export function SubscriptionForm({ collection, endpoints }: { collection: Collection; endpoints: Endpoint[] }) {
  const queries = useQueryClient();
  const prefix = collection.kind === 'inbox' ? 'inbox-sub' : 'space-sub';
  const [endpointId, setEndpointId] = useState(endpoints[0]?.id ?? '');
  const [choice, setChoice] = useState<Choice>('all');
  const [value, setValue] = useState('');
  const [debounce, setDebounce] = useState('1000');
  const [activateNow, setActivateNow] = useState(true);
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const creating = useMutation({
    mutationFn: (input: { endpoint_id: string; debounce_ms: number; filter?: Filter }) => createSubscription(collection, input, activateNow),
    onSuccess: async (result) => {
      await queries.invalidateQueries({ queryKey: collectionKey(collection) });
      if (result.activationError) {
        setProblem(`Created ${result.created.id}, but it stays inactive: ${result.activationError}`);
      } else {
        const woken = endpoints.find((e) => e.id === result.created.endpoint_id)?.url ?? result.created.endpoint_id;
        setDone(
          result.created.status === 'active'
            ? `Created and activated ${result.created.id}: events after cursor ${result.created.activation_cursor} wake ${woken}.`
            : `Created ${result.created.id}. It sends nothing until you activate it.`,
        );
        setValue('');
        setChoice('all');
      }
    },
  });
  const busy = creating.isPending;

  if (endpoints.length === 0) {
    return (
      <p>
        You have no webhook endpoints yet. <Link to="/webhooks">Register one</Link> first: a subscription sends its wakes to one of
        your endpoints.
      </p>
    );
  }

  // The list may have changed since the form appeared (an endpoint registered or deleted meanwhile).
  const selected = endpoints.find((e) => e.id === endpointId) ?? endpoints[0]!;
  const chosen = selected.id;
  const current = CHOICES.find((c) => c.value === choice)!;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    creating.reset();
    setProblem('');
    setDone('');
    if (current.field && value.trim() === '') {
      setProblem(`${current.field} is needed for this choice.`);
      return;
    }
    if (choice === 'task' && !/^[1-9][0-9]*$/.test(value.trim())) {
      setProblem('Task number: a task id such as 42.');
      return;
    }
    const filter = collection.kind === 'space' ? filterFor(choice, value) : undefined;
    creating.mutate({ endpoint_id: chosen, debounce_ms: Number(debounce), ...(filter ? { filter } : {}) });
  };

  return (
    <form className="card subscription-form" onSubmit={submit} aria-labelledby={`${prefix}-title`}>
      <h3 id={`${prefix}-title`}>New subscription</h3>
      <div className="field">
        <label htmlFor={`${prefix}-endpoint`}>Endpoint</label>
        <select id={`${prefix}-endpoint`} value={chosen} onChange={(e) => setEndpointId(e.target.value)}>
          {endpoints.map((e) => (
            <option key={e.id} value={e.id}>
              {e.url} ({e.status})
            </option>
          ))}
        </select>
      </div>
      {collection.kind === 'space' ? (
        <fieldset className="field filter-choice">
          <legend>Which events wake it</legend>
          {CHOICES.map((c) => (
            <div key={c.value} className="field checkbox">
              <input type="radio" id={`${prefix}-filter-${c.value}`} name={`${prefix}-filter`} value={c.value} checked={choice === c.value} onChange={() => setChoice(c.value)} />
              <label htmlFor={`${prefix}-filter-${c.value}`}>{c.label}</label>
            </div>
          ))}
          {current.field ? (
            <div className="field">
              <label htmlFor={`${prefix}-filter-value`}>{current.field}</label>
              <input
                id={`${prefix}-filter-value`}
                type="text"
                value={value}
                inputMode={choice === 'task' ? 'numeric' : undefined}
                aria-describedby={current.hint ? `${prefix}-filter-hint` : undefined}
                onChange={(e) => setValue(e.target.value)}
              />
              {current.hint ? (
                <p id={`${prefix}-filter-hint`} className="hint">
                  {current.hint}
                </p>
              ) : null}
            </div>
          ) : null}
        </fieldset>
      ) : null}
      <div className="field">
        <label htmlFor={`${prefix}-debounce`}>Debounce (milliseconds)</label>
        <input
          id={`${prefix}-debounce`}
          type="number"
          min={0}
          max={60000}
          step={1}
          value={debounce}
          aria-describedby={`${prefix}-debounce-hint`}
          onChange={(e) => setDebounce(e.target.value)}
        />
        <p id={`${prefix}-debounce-hint`} className="hint">
          How long a wake waits after the first event to gather more: 0 to 60000.
        </p>
      </div>
      <div className="field checkbox">
        <input id={`${prefix}-activate`} type="checkbox" checked={activateNow} onChange={(e) => setActivateNow(e.target.checked)} />
        <label htmlFor={`${prefix}-activate`}>Activate at once (the endpoint must be verified)</label>
      </div>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorMessage>{problem || (creating.isError ? errorText(creating.error, { fields: { endpoint_id: 'Endpoint', debounce_ms: 'Debounce', filter: 'Which events wake it' } }) : '')}</ErrorMessage>
      <button type="submit" aria-disabled={busy}>
        Subscribe
      </button>
    </form>
  );
}
