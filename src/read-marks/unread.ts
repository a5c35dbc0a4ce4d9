import { Type } from '@sinclair/typebox';

/**
 * A channel's `unread` counts up to this many messages: 100 means "100 or
 * more". Counting stops there, so listing the channels costs at most this many
 * index entries per channel however far behind the caller is.
 */
export const MAX_UNREAD_COUNTED = 100;

export const Unread = Type.Integer({
  minimum: 0,
  maximum: MAX_UNREAD_COUNTED,
  description: "The caller's messages to read here: others' messages after their read mark; 100 means 100 or more. Members only.",
});
