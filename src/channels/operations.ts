import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { SpaceParams } from '../spaces/schemas.js';
import { getSpace } from '../spaces/service.js';
import { ChannelRef, ChannelSchema, CreateChannelBody } from './schemas.js';
import * as channels from './service.js';

const TAG: Tag = 'Messages';

export const listChannels = defineOperation({
  name: 'list_channels',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/channels',
  tag: TAG,
  summary: "List a Space's channels",
  description: 'By name. Follows read access: public for open and request Spaces; invite Spaces need current admission.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  params: SpaceParams,
  success: {
    status: 200,
    description: 'The channels, by name.',
    schema: Type.Object({ channels: Type.Array(ChannelRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return { channels: await channels.listChannels(ctx.db.kysely, actor, space), protocol: PROTOCOL };
  },
});

export const createChannel = defineOperation({
  name: 'create_channel',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/channels',
  tag: TAG,
  summary: 'Create a channel',
  description:
    'Any member who may act in the Space. The Space must be active (409 otherwise); names are unique in a Space (409). ' +
    '`name` is 1-64 lowercase letters, digits and single hyphens; `topic` at most 280 characters. Event `channel_created`.',
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  params: SpaceParams,
  body: CreateChannelBody,
  bodyRequired: true,
  success: { status: 201, description: 'The new channel.', schema: ChannelRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction(async (tx) => channels.createChannel(tx, actor, await getSpace(tx.db, params.slug), body)),
});

export const channelOperations = [listChannels, createChannel];
export const channelSchemas = [ChannelSchema];
