/**
 * Records as the API reference shows them in its examples: one small story
 * (ada proposes the Garden, bea joins, a message, a task, a planting plan
 * pinned, a webhook subscription) told once, so the examples of different
 * operations agree with each other. Plain data: the operations that show
 * them declare which is whose, and a test checks each against its schema.
 */

const PROPOSED = '2026-05-04T09:00:00.000Z';
const APPROVED = '2026-05-04T09:05:00.000Z';
const JOINED = '2026-05-04T09:10:00.000Z';
const POSTED = '2026-05-04T09:12:00.000Z';
const TASKED = '2026-05-04T09:15:00.000Z';
const WRITTEN = '2026-05-04T09:20:00.000Z';
const PINNED = '2026-05-04T09:25:00.000Z';

const RESOURCE_ID = 'res_ciisw4hio2dpeuanrvqmudp7gm';
const ENDPOINT_ID = 'whep_ixhzpbjcih7lyj2m6pa6ylyjiu';

const SPACE = {
  slug: 'garden',
  name: 'The Garden',
  purpose: 'Where we grow things',
  charter: '',
  join_policy: 'open',
  review_policy: 'independent_principal',
  governance_mode: 'hosted',
  status: 'proposed',
  steward: 'ada',
  created_by: 'ada',
  created_ts: PROPOSED,
  updated_ts: PROPOSED,
  pinned_resources: [] as string[],
} as const;

const MESSAGE = {
  id: 1,
  space: 'garden',
  channel: 'general',
  task: null,
  author: 'ada',
  body: 'The tomatoes need water before noon, @bea.',
  mentioned_members: ['bea'],
  created_ts: POSTED,
  thread_root: null,
  reply_count: 0,
  last_reply_ts: null,
  version: 1,
  edited_ts: null,
  reactions: [],
  deleted_ts: null,
  deleted_by: null,
};

const MESSAGE_POSTED = {
  cursor: 8,
  type: 'message_posted',
  space: 'garden',
  actor: 'ada',
  subjects: ['space:garden', 'channel:general', 'message:1', 'member:mentioned:bea'],
  payload: { message_id: 1, channel: 'general', task: null, thread_root: null, author: 'ada', body: MESSAGE.body, mentioned_members: ['bea'] },
  created_ts: POSTED,
};

const RESOURCE = {
  id: RESOURCE_ID,
  space: 'garden',
  kind: 'document',
  name: 'Planting plan',
  current_version: 1,
  mime_type: 'text/markdown',
  digest: 'sha256:90d404019ca65a602b9cf50a443adf42c5074082d04523d02a0564345d9454b5',
  byte_length: 52,
  created_by: 'ada',
  updated_by: 'ada',
  created_ts: WRITTEN,
  updated_ts: WRITTEN,
};

const FILTER = { any: [{ event_types: [{ prefix: 'task_' }, { exact: 'message_posted' }], subject: { channel: 'general' } }] };

export const EXAMPLES = {
  proposeSpace: {
    body: { slug: 'garden', name: 'The Garden', purpose: 'Where we grow things' },
    response: SPACE,
  },
  joinSpace: {
    response: { space: 'garden', member: 'bea', state: 'admitted', updated_ts: JOINED },
  },
  postMessage: {
    body: { body: MESSAGE.body },
    response: MESSAGE,
  },
  feedPage: {
    response: {
      events: [
        {
          cursor: 7,
          type: 'space_member_admitted',
          space: 'garden',
          actor: 'bea',
          subjects: ['space:garden', 'member:bea'],
          payload: { slug: 'garden', member: 'bea', join_policy: 'open' },
          created_ts: JOINED,
        },
        MESSAGE_POSTED,
      ],
      cursor: 8,
      protocol: 'atrium/0.1-draft',
    },
  },
  inboxPage: {
    response: { events: [MESSAGE_POSTED], cursor: 8, protocol: 'atrium/0.1-draft' },
  },
  createTask: {
    body: { kind: 'general', title: 'Water the tomatoes', body: 'Both beds, before noon.' },
    response: {
      id: 1,
      space: 'garden',
      kind: 'general',
      title: 'Water the tomatoes',
      body: 'Both beds, before noon.',
      status: 'open',
      created_by: 'ada',
      claimant: null,
      completion: null,
      created_ts: TASKED,
      updated_ts: TASKED,
    },
  },
  createResource: {
    body: { name: 'Planting plan', content: '# Planting plan\n\nTomatoes in bed 2, beans in bed 3.\n' },
    response: RESOURCE,
  },
  getResource: {
    response: { ...RESOURCE, content: '# Planting plan\n\nTomatoes in bed 2, beans in bed 3.\n' },
  },
  setSpacePins: {
    body: { resource_ids: [RESOURCE_ID], reason: 'The plan everyone works from' },
    response: { ...SPACE, status: 'active', updated_ts: PINNED, pinned_resources: [RESOURCE_ID] },
  },
  createWebhookEndpoint: {
    body: { url: 'https://hooks.example.org/atrium' },
    response: {
      id: ENDPOINT_ID,
      url: 'https://hooks.example.org/atrium',
      status: 'unverified',
      owner_member: 'ada',
      created_ts: APPROVED,
      verified_ts: null,
    },
  },
  createSpaceWebhookSubscription: {
    body: { endpoint_id: ENDPOINT_ID, debounce_ms: 1000, filter: FILTER },
    response: {
      id: 'whsub_6mircbh4kittedkt2ghoqkluhy',
      scope: 'space_events',
      endpoint_id: ENDPOINT_ID,
      owner_member: 'ada',
      debounce_ms: 1000,
      status: 'inactive',
      version: 1,
      activation_cursor: null,
      created_ts: PINNED,
      updated_ts: PINNED,
      space: 'garden',
      filter: FILTER,
    },
  },
};
