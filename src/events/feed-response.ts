import type { ResponseControl } from '../operations/operation.js';
import type { FeedAnswer, FeedPage } from './types.js';

/**
 * Answers with a feed page as the bytes already made, under its entity tag:
 * the edge sends 304 instead when the client already holds them.
 */
export function sendFeedAnswer(answer: FeedAnswer, response: ResponseControl): FeedPage {
  if (answer.retryAfter !== undefined) response.setHeader('retry-after', String(answer.retryAfter));
  response.sendTagged(answer.body, answer.etag);
  return answer.page;
}
