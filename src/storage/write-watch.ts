import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * Someone who must hear of certain writes made through this node, whatever
 * code makes them: `matches` picks the statements, and `changed` is called
 * when such a statement is issued and again once its effect can no longer be
 * undone (the statement returned outside a transaction, or its transaction
 * ended). The first call keeps lookups already running from being trusted;
 * the second drops whatever was read while the write was uncommitted.
 */
export interface WriteWatcher {
  matches(node: RootOperationNode): boolean;
  changed(): void;
}

/**
 * Watches statements as Kysely builds them. On a Database's own Kysely it
 * settles each statement when it returns; on a transaction of
 * `Database.transaction` it only gathers whom the transaction's writes
 * concern, and the transaction settles them after COMMIT or ROLLBACK.
 * (Kysely tells plugins nothing of a statement that throws: it is never
 * settled here, which is right, since it changed nothing.) Only statements
 * the query builder builds pass through a plugin: raw SQL (`sql` templates,
 * `CompiledQuery.raw`) is never seen, so watched tables are written with the
 * builder.
 */
export class WriteWatch implements KyselyPlugin {
  private readonly issued = new WeakMap<object, WriteWatcher[]>();
  private readonly concerned = new Set<WriteWatcher>();

  constructor(
    private readonly watchers: readonly WriteWatcher[],
    private readonly settles: 'each statement' | 'with the transaction',
  ) {}

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind !== 'UpdateQueryNode' && node.kind !== 'DeleteQueryNode' && node.kind !== 'InsertQueryNode') return node;
    const matched = this.watchers.filter((watcher) => watcher.matches(node));
    if (matched.length === 0) return node;
    for (const watcher of matched) watcher.changed();
    if (this.settles === 'each statement') this.issued.set(queryId, matched);
    else for (const watcher of matched) this.concerned.add(watcher);
    return node;
  }

  transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const matched = this.issued.get(queryId);
    if (matched) {
      this.issued.delete(queryId);
      for (const watcher of matched) watcher.changed();
    }
    return Promise.resolve(result);
  }

  /** `Database.transaction` calls this once its transaction ended, committed or not. */
  settle(): void {
    for (const watcher of this.concerned) watcher.changed();
    this.concerned.clear();
  }
}
