import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../dialect.js';
import * as spine from './0001-spine.js';
import * as uniqueActiveRoles from './0002-unique-active-roles.js';
import * as clientActivations from './0003-client-activations.js';
import * as messages from './0004-messages.js';
import * as tasks from './0005-tasks.js';
import * as resources from './0006-resources.js';
import * as pins from './0007-pins.js';
import * as rateLimits from './0008-rate-limits.js';
import * as operatorConfirmation from './0009-operator-confirmation.js';
import * as hostSecret from './0010-host-secret.js';
import * as eventSequencer from './0011-event-sequencer.js';
import * as webhookSigningKeys from './0012-webhook-signing-keys.js';
import * as webhookEndpoints from './0013-webhook-endpoints.js';
import * as webhookSubscriptions from './0014-webhook-subscriptions.js';
import * as idempotencyKeys from './0015-idempotency-keys.js';
import * as credentialApprovals from './0016-credential-approvals.js';
import * as credentialChangeNotices from './0017-credential-change-notices.js';
import * as credentialChangeCounter from './0018-credential-change-counter.js';
import * as inboxReads from './0019-inbox-reads.js';
import * as oauth from './0020-oauth.js';
import * as search from './0021-search.js';
import * as searchDocumentWrites from './0022-search-document-writes.js';
import * as messageThreads from './0023-message-threads.js';
import * as messageEdits from './0024-message-edits.js';
import * as searchReadIndexes from './0025-search-read-indexes.js';
import * as messageReactions from './0026-message-reactions.js';
import * as readMarks from './0027-read-marks.js';
import * as messageDeletion from './0028-message-deletion.js';
import * as searchPendingDocuments from './0029-search-pending-documents.js';
import * as searchBackfillDocumentIds from './0030-search-backfill-document-ids.js';
import * as eventAudienceMember from './0031-event-audience-member.js';
import * as memberAccessVersion from './0032-member-access-version.js';
import * as sessionChangeNotices from './0033-session-change-notices.js';
import * as spaceMemberPages from './0034-space-member-pages.js';
import * as janitorIndexes from './0035-janitor-indexes.js';
import * as operatorSamples from './0036-operator-samples.js';
import * as oauthTokenScope from './0037-oauth-token-scope.js';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
  /**
   * Set on a contract step, saying what nodes of the previous release would
   * lose: it removes or changes something they still read or write. Absent:
   * an expand step, which only adds (tables, nullable or defaulted columns,
   * indexes) what older nodes never look at.
   */
  contract?: string;
}

/**
 * Migrations are listed here explicitly, never discovered from the file system,
 * so the compiled build and the TypeScript sources run the same list.
 *
 * Expand, then contract (docs/operations.md, "Upgrades"): nodes of this
 * release and the previous one serve side by side on one PostgreSQL during a
 * rolling upgrade, so a release's migrations only expand the schema. What the
 * previous release still uses is removed by a later release, once no node
 * reads it, in a migration that says so (`contract`); `atrium migrate --check`
 * then says the upgrade needs every old node stopped first. Every migration
 * so far is an expand step.
 */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001-spine': spine,
  '0002-unique-active-roles': uniqueActiveRoles,
  '0003-client-activations': clientActivations,
  '0004-messages': messages,
  '0005-tasks': tasks,
  '0006-resources': resources,
  '0007-pins': pins,
  '0008-rate-limits': rateLimits,
  '0009-operator-confirmation': operatorConfirmation,
  '0010-host-secret': hostSecret,
  '0011-event-sequencer': eventSequencer,
  '0012-webhook-signing-keys': webhookSigningKeys,
  '0013-webhook-endpoints': webhookEndpoints,
  '0014-webhook-subscriptions': webhookSubscriptions,
  '0015-idempotency-keys': idempotencyKeys,
  '0016-credential-approvals': credentialApprovals,
  '0017-credential-change-notices': credentialChangeNotices,
  '0018-credential-change-counter': credentialChangeCounter,
  '0019-inbox-reads': inboxReads,
  '0020-oauth': oauth,
  '0021-search': search,
  '0022-search-document-writes': searchDocumentWrites,
  '0023-message-threads': messageThreads,
  '0024-message-edits': messageEdits,
  '0025-search-read-indexes': searchReadIndexes,
  '0026-message-reactions': messageReactions,
  '0027-read-marks': readMarks,
  '0028-message-deletion': messageDeletion,
  '0029-search-pending-documents': searchPendingDocuments,
  '0030-search-backfill-document-ids': searchBackfillDocumentIds,
  '0031-event-audience-member': eventAudienceMember,
  '0032-member-access-version': memberAccessVersion,
  '0033-session-change-notices': sessionChangeNotices,
  '0034-space-member-pages': spaceMemberPages,
  '0035-janitor-indexes': janitorIndexes,
  '0036-operator-samples': operatorSamples,
  '0037-oauth-token-scope': oauthTokenScope,
};

/** What `atrium migrate --check` says of a pending migration: why it is not safe while old nodes run, if it is not. */
export function contractReason(name: string): string | undefined {
  return MIGRATIONS[name]?.contract;
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) {
        out[name] = { up: (db) => m.up(db, dialect) };
      }
      return out;
    },
  };
}
