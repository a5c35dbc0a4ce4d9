import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import { consumeRateLimit } from '../shared/rate-limit.js';
import { SearchPageSchema, SearchQuery, SearchResultSchema } from './schemas.js';
import { search } from './service.js';

export const searchOperation = defineOperation({
  name: 'search',
  who: 'anyone_filtered',
  beyondSpaces: 'filtered',
  method: 'GET',
  path: '/v0/search',
  tag: 'Search',
  summary: 'Find messages, tasks and Resources',
  description:
    'Full-text search over channel and direct messages, task titles, bodies and discussion, and the current version of each Markdown Resource, ' +
    'limited to what the caller may read right now: public Spaces for everyone, `invite` Spaces with current admission, direct messages for their two members, ' +
    'proposed and archived Spaces for their Owner/Host. Most relevant first (newest first among equals), or newest first with `sort=newest`. ' +
    'Anonymous callers are rate limited per address. See docs/search.md for the query language.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  query: SearchQuery,
  success: { status: 200, description: 'One page of results.', schema: Type.Ref('SearchPage') },
  errors: [401, 403, 422, 429],
  readOnly: true,
  handler: async ({ query, actor, ctx, clientAddress }) => {
    if (actor.kind === 'anonymous') {
      await ctx.db.transaction((tx) =>
        consumeRateLimit(tx, {
          bucket: 'anonymous_search',
          keyDigest: ctx.addressDigest(clientAddress),
          limit: ctx.config.anonymousSearchRateLimit,
          windowMs: 60 * 1000,
          detail: 'too many searches from this address without a credential; sign in, or try again in a minute',
        }),
      );
    }
    return search(ctx.db, actor, query);
  },
});

export const searchSchemas = [SearchResultSchema, SearchPageSchema];
export const searchOperations = [searchOperation];
