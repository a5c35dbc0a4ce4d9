import type { Tx } from '../storage/database.js';

/** protocol: Channels. Every Space gets this channel when it is approved. */
export const GENERAL_CHANNEL = 'general';

/**
 * Creates `general` in a Space being approved, inside the approval's
 * transaction, with the approver as creator (null for the steward key). It is
 * part of the approval, so `space_approved` records it and no `channel_created`
 * is emitted (docs/messages.md). A Space is approved at most once (active
 * Spaces cannot be archived); the insert tolerates an existing channel anyway.
 */
export async function createGeneralChannel(tx: Tx, approver: string | null, space: string): Promise<void> {
  await tx.db
    .insertInto('channels')
    .values({ space, name: GENERAL_CHANNEL, topic: '', created_by: approver, created_ts: tx.now.toISOString() })
    .onConflict((oc) => oc.columns(['space', 'name']).doNothing())
    .execute();
}
