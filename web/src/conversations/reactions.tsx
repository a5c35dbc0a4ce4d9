import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useFloatingDisclosure } from '../app/disclosure';
import { call, client, errorText } from '../api/client';
import { ErrorMessage } from '../app/page';
import { conversationKeys, type Message } from './data';

// Reactions under a message: one chip per emoji with its count, pressed when
// the reader is among those who reacted (pressing again takes theirs back),
// and a small picker of common emoji. The server keeps one reaction per
// member per emoji and refuses what is not one emoji; the counts stay live
// through the Space feed, whose reaction events refresh the conversation.

/** What the picker offers, with the words a screen reader says for each. Each is one fully-qualified emoji. */
export const PICKER: ReadonlyArray<readonly [emoji: string, name: string]> = [
  ['👍', 'thumbs up'],
  ['❤️', 'red heart'],
  ['😂', 'tears of joy'],
  ['🎉', 'party popper'],
  ['😮', 'surprised'],
  ['😢', 'crying'],
  ['🙏', 'thank you'],
  ['👀', 'eyes'],
  ['✅', 'done'],
  ['🚀', 'rocket'],
  ['🔥', 'fire'],
  ['🤔', 'thinking'],
  ['👏', 'clapping'],
  ['💯', 'hundred points'],
  ['👎', 'thumbs down'],
  ['🌱', 'seedling'],
];

const nameOf = (emoji: string) => PICKER.find(([e]) => e === emoji)?.[1];

function useToggleReaction(message: Message) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async ({ emoji, on }: { emoji: string; on: boolean }) => {
      const params = { params: { path: { slug: message.space, id: message.id, emoji } } };
      await call(on ? client.PUT('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', params) : client.DELETE('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', params));
    },
    onSettled: () => queries.invalidateQueries({ queryKey: conversationKeys.all(message.space) }),
  });
}

/** The chips: shown to everyone who can read the message; pressable by a signed-in reader. */
export function ReactionChips({ message, reader }: { message: Message; reader: string | null }) {
  const toggle = useToggleReaction(message);
  if (message.reactions.length === 0 && !toggle.isError) return null;
  return (
    <div className="reactions">
      <ul className="reaction-chips" aria-label="Reactions">
        {message.reactions.map((reaction) => {
          const mine = reader !== null && reaction.members.includes(reader);
          const who = reaction.members.map((m) => `@${m}`).join(', ') + (reaction.count > reaction.members.length ? ` and ${reaction.count - reaction.members.length} more` : '');
          const label = `${nameOf(reaction.emoji) ?? reaction.emoji}: ${reaction.count}${mine ? ', yours among them' : ''}`;
          return (
            <li key={reaction.emoji}>
              <button
                type="button"
                className={mine ? 'reaction-chip mine' : 'reaction-chip'}
                aria-pressed={reader === null ? undefined : mine}
                aria-label={label}
                title={who}
                disabled={reader === null}
                onClick={() => toggle.mutate({ emoji: reaction.emoji, on: !mine })}
              >
                <span aria-hidden="true">{reaction.emoji}</span> <span aria-hidden="true">{reaction.count}</span>
              </button>
            </li>
          );
        })}
      </ul>
      <ErrorMessage>{toggle.isError ? `Could not react: ${errorText(toggle.error)}` : ''}</ErrorMessage>
    </div>
  );
}

/** "React" beside the message's other actions: opens the picker; a choice reacts and closes it. */
export function AddReaction({ message }: { message: Message }) {
  const id = useId();
  const { open, setOpen, close, box, button, onKeyDown } = useFloatingDisclosure<HTMLSpanElement>();
  const toggle = useToggleReaction(message);

  // The picker takes focus, so the keyboard can choose at once.
  useEffect(() => {
    if (open) box.current?.querySelector<HTMLButtonElement>('.reaction-picker button')?.focus();
  }, [open, box]);

  return (
    <span
      className="add-reaction"
      ref={box}
      onKeyDown={onKeyDown}
    >
      <button ref={button} type="button" className="link-button" aria-expanded={open} aria-controls={`${id}-picker`} onClick={() => setOpen(!open)}>
        React<span className="visually-hidden"> to @{message.author}’s message</span>
      </button>
      <span id={`${id}-picker`} role="group" aria-label="Choose a reaction" className="reaction-picker" hidden={!open}>
        {open
          ? PICKER.map(([emoji, name]) => (
              <button
                key={emoji}
                type="button"
                aria-label={name}
                title={name}
                onClick={() => {
                  toggle.mutate({ emoji, on: true });
                  close();
                }}
              >
                {emoji}
              </button>
            ))
          : null}
      </span>
      {toggle.isError ? <ErrorMessage>{`Could not react: ${errorText(toggle.error)}`}</ErrorMessage> : null}
    </span>
  );
}
