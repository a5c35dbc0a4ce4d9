import { Type } from '@sinclair/typebox';
import { ChannelName } from '../channels/schemas.js';
import { Handle, Timestamp } from '../shared/schemas.js';

const MessageId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Read up to and including this message id.' });

export const ReadMarkSchema = Type.Object(
  {
    channel: Type.Union([Type.String(), Type.Null()], { description: 'The channel; null for a direct conversation.' }),
    with: Type.Union([Type.String(), Type.Null()], { description: 'The other member of a direct conversation; null for a channel.' }),
    message_id: MessageId,
    updated_ts: Timestamp,
  },
  { $id: 'ReadMark', additionalProperties: false },
);

export const ReadMarkListSchema = Type.Object(
  {
    read_marks: Type.Array(Type.Ref('ReadMark'), { description: 'Channels first, by name, then direct conversations.' }),
    protocol: Type.String(),
  },
  { $id: 'ReadMarkList', additionalProperties: false },
);

/** `POST …/read-marks`: one conversation, named by `channel` or `with`, and how far it is read. */
export const MarkReadBody = Type.Object(
  {
    channel: Type.Optional(ChannelName),
    with: Type.Optional(Type.String({ ...Handle, description: 'The other member of a direct conversation.' })),
    message_id: MessageId,
  },
  { additionalProperties: false },
);
