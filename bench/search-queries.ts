// What the search benchmark asks, and of whom (bench/search.ts, bench/search-plans.ts).

/** What bench/search-seed.ts prints. */
export interface SearchSeed {
  /** A session of the host-wide Owner. */
  session: string;
  /** A member key of the member admitted to three invite Spaces. */
  searcher: string;
  writers: string[];
  postSpace: string;
  from: string;
  fromMessages: number;
  after: string;
  searcherSpaces: string[];
  counts: { messages: number; tasks: number; resources: number; documents: number };
  size: { documents: number; documentIndexes: number; terms: number; messagesWithIndexes: number };
  seconds: number;
}

/** The marker words and their rates are bench/search-corpus.ts's. */
export const QUERIES = {
  'two words': () => 'garden trellis',
  operators: (seed: SearchSeed) => `garden "south wall" -blocked from:${seed.from} kind:message after:${seed.after}`,
  'rare word': () => 'quokka',
} as const;

/** Anonymous; the member admitted to three invite Spaces (with a member key); the host-wide Owner (with a session). */
export const CALLERS = ['anonymous', 'member', 'host-wide Owner'] as const;
export type Caller = (typeof CALLERS)[number];
