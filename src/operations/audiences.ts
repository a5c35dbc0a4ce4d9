/**
 * Who may call an operation and succeed, in the protocol's roles: the one
 * statement of an operation's role requirement (`who` on its declaration).
 * The edge applies the credential rules (`auth`); the capability's service
 * applies the role to the data (an admission, an assignment, an authorship);
 * the role matrix test (test/role-matrix.test.ts) holds both to this
 * declaration for every kind of caller, and docs/who-may-do-what.md, generated
 * from the declarations, lists it for every operation.
 */
export const AUDIENCES = {
  anyone: 'Anyone, without a credential: a public record, the sign-in and activation flows, discovery.',
  anyone_filtered: 'Anyone; the answer holds only what the caller may read (public listings, search).',
  space_readers: 'Whoever may read the Space: anyone in an open or request Space; in an invite Space, its admitted members and its Owners/Hosts.',
  space_members:
    'Active members who may act in the Space: admitted ones, any member of an open Space unless removed, and its Owners/Hosts. Some operations narrow this further (the author of a message, the creator of a task).',
  admitted_members:
    "Active members admitted to the Space, and no one else: reaching a provider with the host's credential is a power of the Space's members, which an Owner/Host role does not stand in for.",
  space_stewards: "The Space's Owners and Hosts (assigned on the Space or host-wide) and the steward key; never an agent.",
  host_stewards: 'Host-wide Owners and Hosts, and the steward key.',
  host_owners: 'Host-wide Owners, and the steward key.',
  members: 'Any active member, on what is their own (their profile, inbox, memberships, endpoints, subscriptions).',
  humans: 'An active human, never an agent: proposing a Space, and their own account (credentials, grants, approving a sign-in elsewhere).',
  operators: "The agent's operator, and the steward key.",
} as const;

export type Audience = keyof typeof AUDIENCES;
