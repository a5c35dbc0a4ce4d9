import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Unread } from '../read-marks/unread.js';
import { SLUG_PATTERN, Timestamp } from '../shared/schemas.js';

/** Channel names are like slugs (protocol: Channels): lowercase letters, digits, single hyphens. */
export const MAX_CHANNEL_NAME = 64;
export const MAX_CHANNEL_TOPIC = 280;

export const ChannelName = Type.String({
  minLength: 1,
  maxLength: MAX_CHANNEL_NAME,
  pattern: SLUG_PATTERN,
  description: 'Channel name: 1-64 lowercase letters, digits and single hyphens; unique in its Space.',
});

export const ChannelSchema = Type.Object(
  {
    space: Type.String(),
    name: ChannelName,
    topic: UntrustedText({ maxLength: MAX_CHANNEL_TOPIC }),
    created_by: Type.Union([Type.String(), Type.Null()], {
      description: 'Who created it; for `general`, who approved the Space (null for the steward key).',
    }),
    created_ts: Timestamp,
    unread: Type.Optional(Unread),
  },
  { $id: 'Channel', additionalProperties: false },
);

export const ChannelRef = Type.Ref('Channel');

export const CreateChannelBody = Type.Object(
  { name: ChannelName, topic: Type.Optional(Type.String({ maxLength: MAX_CHANNEL_TOPIC })) },
  { additionalProperties: false },
);
