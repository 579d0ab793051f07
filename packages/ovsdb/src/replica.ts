// Replica (IDL): an in-memory copy of monitored tables kept current with monitor_cond_since, plus optimistic transactions.
import { EventEmitter } from 'node:events';
import type { MonitorCondition, MonitorRequests, OvsdbClient, TableUpdates2 } from './client';
import { ConflictError, OvsdbError, RpcError } from './errors';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { ops, type Operation, type TransactionResult } from './ops';
import type { DatabaseSchema } from './schema';
import { applyDiff, datumEquals, defaultDatum, type Datum } from './values';

/** A row in the replica: its columns plus `_uuid`. */
export type ReplicaRow = Readonly<Record<string, Datum>> & { readonly _uuid: string };

/** What to replicate of one table. */
export interface ReplicaTableOptions {
  /** Columns to keep (default: all but ephemeral ones are included too, as the server sends them). */
  columns?: readonly string[];
  /** Rows must match every condition (default: all rows). */
  where?: readonly MonitorCondition[];
}

/** Options of {@link Replica}. */
export interface ReplicaOptions {
  db: string;
  tables: Readonly<Record<string, ReplicaTableOptions>>;
  logger?: Logger;
  /** Monitor id used on the wire (default: a unique string). */
  monitorId?: string;
}

/** Events of {@link Replica}; rows are typed by the caller's table map. */
export interface ReplicaEvents {
  insert: [table: string, row: ReplicaRow];
  update: [table: string, row: ReplicaRow, old: ReplicaRow];
  delete: [table: string, row: ReplicaRow];
  /** After every applied batch (one server transaction); `lastTxnId` may be undefined with plain monitor_cond. */
  commit: [info: { lastTxnId: string | undefined }];
  /** After (re)loading: `resumed` is true when monitor_cond_since could skip the full dump. */
  synced: [info: { resumed: boolean; reconnect: boolean }];
  error: [err: Error];
}

let monitorCounter = 0;

/** Default table map of an untyped replica: any table, rows of decoded values. */
export type AnyTables = Record<string, ReplicaRow>;
/** Table names of a table map. */
export type TableName<DB> = Extract<keyof DB, string>;

/** Typed per-table event handlers for {@link Replica.watch}. */
export interface TableHandlers<Row> {
  insert?(row: Row): void;
  update?(row: Row, old: Row): void;
  delete?(row: Row): void;
}

/** A transaction context for {@link Replica.transaction}: reads are recorded and verified at commit. */
export interface ReplicaTransaction<DB extends object = AnyTables> {
  /** Reads a row (recorded: the transaction fails and retries if it changes before commit). */
  get<T extends TableName<DB>>(table: T, uuid: string): DB[T] | undefined;
  /** Reads all matching rows of a table (each recorded, and the table's row set too when unfiltered). */
  find<T extends TableName<DB>>(table: T, pred?: (row: DB[T]) => boolean): DB[T][];
  /** Queues operations to run after the read checks. */
  add(...operations: Operation[]): void;
}

/** Outcome of {@link Replica.transaction}. */
export interface ReplicaTransactionResult<T> {
  readonly result: TransactionResult;
  readonly value: T;
  readonly attempts: number;
}

/**
 * Replicates selected tables of one database, like the OVS IDL or libovsdb's cache. After a reconnect it
 * resumes with monitor_cond_since from the last transaction id it saw, so when the server still has it
 * only the changes are transferred; otherwise it reloads and emits the differences as events.
 */
export class Replica<DB extends object = AnyTables> extends EventEmitter<ReplicaEvents> {
  private readonly tables = new Map<string, Map<string, ReplicaRow>>();
  private readonly log: Logger;
  private readonly monitorId: string;
  private schema: DatabaseSchema | undefined;
  private lastTxnId: string | undefined;
  private loading = false;
  private queue: Array<[string | undefined, TableUpdates2]> = [];
  private started = false;
  private stopped = false;
  private changeWaiters: Array<() => void> = [];
  private readonly where = new Map<string, readonly MonitorCondition[] | undefined>();

  constructor(
    readonly client: OvsdbClient,
    private readonly opts: ReplicaOptions,
  ) {
    super();
    this.log = opts.logger ?? silentLogger;
    this.monitorId = opts.monitorId ?? `replica-${process.pid}-${++monitorCounter}`;
    for (const [t, o] of Object.entries(opts.tables)) {
      this.tables.set(t, new Map());
      this.where.set(t, o.where);
    }
    this.onUpdate3 = this.onUpdate3.bind(this);
    this.onUpdate2 = this.onUpdate2.bind(this);
    this.onConnected = this.onConnected.bind(this);
  }

  /** The last server transaction id applied (monitor_cond_since resume point). */
  get txnId(): string | undefined {
    return this.lastTxnId;
  }

  /** Starts monitoring and resolves once the initial contents are loaded. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.client.on('update3', this.onUpdate3);
    this.client.on('update2', this.onUpdate2);
    this.client.on('connected', this.onConnected);
    this.schema = await this.client.getSchema(this.opts.db);
    await this.load(false);
  }

  /** Stops monitoring (the cache stays readable). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.client.off('update3', this.onUpdate3);
    this.client.off('update2', this.onUpdate2);
    this.client.off('connected', this.onConnected);
    if (this.client.isConnected) await this.client.monitorCancel(this.monitorId).catch(() => undefined);
  }

  /**
   * A row by uuid. With a typed replica (`new Replica<VswitchTables>(...)`) rows have the generated
   * row type; columns left out of the monitor are absent at run time.
   */
  get<T extends TableName<DB>>(table: T, uuid: string): DB[T] | undefined {
    return this.tables.get(table)?.get(uuid) as DB[T] | undefined;
  }

  /** All rows of a table. */
  list<T extends TableName<DB>>(table: T): DB[T][] {
    return this.rowsOf(table) as DB[T][];
  }

  /** Rows of a table matching a predicate. */
  find<T extends TableName<DB>>(table: T, pred: (row: DB[T]) => boolean): DB[T][] {
    return this.list(table).filter(pred);
  }

  /** Typed insert/update/delete handlers for one table; returns a function that removes them. */
  watch<T extends TableName<DB>>(table: T, handlers: TableHandlers<DB[T]>): () => void {
    const ins = (t: string, row: ReplicaRow): void => {
      if (t === table) handlers.insert?.(row as DB[T]);
    };
    const upd = (t: string, row: ReplicaRow, old: ReplicaRow): void => {
      if (t === table) handlers.update?.(row as DB[T], old as DB[T]);
    };
    const del = (t: string, row: ReplicaRow): void => {
      if (t === table) handlers.delete?.(row as DB[T]);
    };
    this.on('insert', ins);
    this.on('update', upd);
    this.on('delete', del);
    return () => {
      this.off('insert', ins);
      this.off('update', upd);
      this.off('delete', del);
    };
  }

  private rowsOf(table: string): ReplicaRow[] {
    return [...(this.tables.get(table)?.values() ?? [])];
  }

  /** A plain copy: table -> uuid -> row (for comparisons and debugging). */
  snapshot(): Record<string, Record<string, ReplicaRow>> {
    const out: Record<string, Record<string, ReplicaRow>> = {};
    for (const [t, rows] of this.tables) out[t] = Object.fromEntries(rows);
    return out;
  }

  /** Changes the row conditions of a monitored table (monitor_cond_change); the cache follows. */
  async setConditions(table: string, where: readonly MonitorCondition[] | undefined): Promise<void> {
    if (!this.tables.has(table))
      throw new OvsdbError('OVSDB_BAD_REQUEST', `table ${table} is not replicated`);
    this.where.set(table, where);
    await this.client.monitorCondChange(this.monitorId, this.monitorId, {
      [table]: { where: where ?? [true] },
    });
  }

  /** update2 rows leave out columns at their default value: fill them in. */
  private complete(table: string, uuid: string, row: Readonly<Record<string, Datum>>): ReplicaRow {
    const t = this.schema!.tables[table];
    const out: Record<string, Datum> = {};
    const cols = this.opts.tables[table]?.columns ?? Object.keys(t?.columns ?? {});
    for (const c of cols) {
      if (c === '_uuid' || c === '_version') continue;
      const col = t?.columns[c];
      if (col) out[c] = defaultDatum(col.type);
    }
    Object.assign(out, row);
    // _version comes and goes in update2 rows; the replica does not track it.
    delete out._version;
    out._uuid = uuid;
    return out as ReplicaRow;
  }

  private requests(): MonitorRequests {
    const r: Record<string, { columns?: readonly string[]; where?: readonly MonitorCondition[] }> = {};
    for (const [t, o] of Object.entries(this.opts.tables)) {
      const w = this.where.get(t);
      r[t] = { ...(o.columns ? { columns: o.columns } : {}), ...(w ? { where: w } : {}) };
    }
    return r;
  }

  private onConnected(info: { reconnected: boolean }): void {
    if (!info.reconnected || this.stopped) return;
    this.load(true).catch((err: Error) => {
      // A failed resume (e.g. the session dropped again) is retried on the next 'connected'.
      this.log.warn({ err: err.message }, 'ovsdb replica: resume failed');
      this.reportError(err);
    });
  }

  private async load(reconnect: boolean): Promise<void> {
    this.loading = true;
    this.queue = [];
    try {
      let found = false;
      let updates: TableUpdates2;
      try {
        const r = await this.client.monitorCondSince(
          this.opts.db,
          this.monitorId,
          this.requests(),
          this.lastTxnId,
        );
        found = r.found && this.lastTxnId !== undefined;
        updates = r.updates;
        this.lastTxnId = r.lastTxnId === '00000000-0000-0000-0000-000000000000' ? undefined : r.lastTxnId;
      } catch (err) {
        if (!(err instanceof RpcError) || !/unknown method/.test(JSON.stringify(err.error))) throw err;
        // Servers older than OVS 2.12 lack monitor_cond_since.
        updates = await this.client.monitorCond(this.opts.db, this.monitorId, this.requests());
        this.lastTxnId = undefined;
      }
      if (found) this.apply(updates);
      else this.replaceAll(updates);
      this.loading = false;
      const queued = this.queue;
      this.queue = [];
      for (const [txn, u] of queued) {
        if (txn !== undefined) this.lastTxnId = txn;
        this.apply(u);
      }
      this.emit('synced', { resumed: found, reconnect });
      this.emit('commit', { lastTxnId: this.lastTxnId });
      this.notifyChange();
    } finally {
      this.loading = false;
    }
  }

  private onUpdate3(monitorId: unknown, lastTxnId: string, updates: TableUpdates2): void {
    if (monitorId !== this.monitorId) return;
    if (this.loading) {
      this.queue.push([lastTxnId, updates]);
      return;
    }
    this.lastTxnId = lastTxnId;
    this.apply(updates);
    this.emit('commit', { lastTxnId });
    this.notifyChange();
  }

  private onUpdate2(monitorId: unknown, updates: TableUpdates2): void {
    if (monitorId !== this.monitorId) return;
    if (this.loading) {
      this.queue.push([undefined, updates]);
      return;
    }
    this.apply(updates);
    this.emit('commit', { lastTxnId: this.lastTxnId });
    this.notifyChange();
  }

  /** Full reload: replaces the cache and emits only the real differences. */
  private replaceAll(updates: TableUpdates2): void {
    for (const [table, rows] of this.tables) {
      const fresh = updates[table] ?? {};
      const next = new Map<string, ReplicaRow>();
      for (const [uuid, u] of Object.entries(fresh)) {
        if (u.kind === 'initial' || u.kind === 'insert') next.set(uuid, this.complete(table, uuid, u.row));
      }
      for (const [uuid, old] of rows) {
        const n = next.get(uuid);
        if (!n) this.emit('delete', table, old);
        else if (!rowEquals(old, n)) this.emit('update', table, n, old);
      }
      for (const [uuid, n] of next) if (!rows.has(uuid)) this.emit('insert', table, n);
      this.tables.set(table, next);
    }
  }

  private apply(updates: TableUpdates2): void {
    const schema = this.schema!;
    for (const [table, rows] of Object.entries(updates)) {
      const cache = this.tables.get(table);
      if (!cache) continue;
      for (const [uuid, u] of Object.entries(rows)) {
        const old = cache.get(uuid);
        switch (u.kind) {
          case 'initial':
          case 'insert': {
            const row = this.complete(table, uuid, u.row);
            cache.set(uuid, row);
            if (old) this.emit('update', table, row, old);
            else this.emit('insert', table, row);
            break;
          }
          case 'delete':
            if (old) {
              cache.delete(uuid);
              this.emit('delete', table, old);
            }
            break;
          case 'modify': {
            if (!old) {
              // The cache missed a row: report it and rebuild from a full dump rather than guess.
              this.reportError(
                new OvsdbError('OVSDB_REPLICA_DIVERGED', `modify of unknown row ${table} ${uuid}`),
              );
              this.resync();
              break;
            }
            const next: Record<string, Datum> = { ...old };
            for (const [col, diff] of Object.entries(u.diff)) {
              const c = schema.tables[table]?.columns[col];
              if (!c || col === '_version') continue;
              next[col] = applyDiff(c.type, old[col] ?? emptyOf(c.type), diff, { table, column: col });
            }
            const row = next as ReplicaRow;
            cache.set(uuid, row);
            this.emit('update', table, row, old);
            break;
          }
        }
      }
    }
  }

  /** 'error' events only when someone listens: an unheard error must not crash the process. */
  private reportError(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else this.log.error({ err: err.message }, 'ovsdb replica error');
  }

  /** Reloads everything (emitting only the differences), e.g. after a divergence. */
  private resync(): void {
    if (this.loading || this.stopped) return;
    this.lastTxnId = undefined;
    queueMicrotask(() => {
      this.load(true).catch((err: Error) => this.reportError(err));
    });
  }

  private notifyChange(): void {
    const w = this.changeWaiters;
    this.changeWaiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next applied change or after `timeoutMs`. */
  private nextChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      t.unref?.();
      this.changeWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /**
   * Optimistic transaction: `fn` reads from the replica and queues operations; at commit, `wait`
   * operations check that every row read is unchanged. On a conflict the replica catches up and `fn`
   * runs again (up to `maxAttempts`, default 5), else ConflictError. Other failures are returned as is.
   */
  async transaction<T>(
    fn: (tx: ReplicaTransaction<DB>) => T | Promise<T>,
    opts: { maxAttempts?: number } = {},
  ): Promise<ReplicaTransactionResult<T>> {
    const maxAttempts = opts.maxAttempts ?? 5;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const reads = new Map<string, { table: string; row: ReplicaRow }>();
      const tableReads = new Map<string, string[]>();
      const queued: Operation[] = [];
      const tx: ReplicaTransaction<AnyTables> = {
        get: (table, uuid) => {
          const row = this.tables.get(table)?.get(uuid);
          if (row) reads.set(`${table}/${uuid}`, { table, row });
          else
            tableReads.set(
              table,
              this.rowsOf(table).map((r) => r._uuid),
            );
          return row;
        },
        find: (table, pred) => {
          const all = this.rowsOf(table);
          const rows = pred ? all.filter(pred) : all;
          for (const row of rows) reads.set(`${table}/${row._uuid}`, { table, row });
          tableReads.set(
            table,
            all.map((r) => r._uuid),
          );
          return rows;
        },
        add: (...o) => queued.push(...o),
      };
      const value = await fn(tx as unknown as ReplicaTransaction<DB>);
      const checks: Operation[] = [];
      for (const { table, row } of reads.values()) {
        const { _uuid, ...cols } = row;
        const columns = Object.keys(cols);
        checks.push(ops.wait(table, [['_uuid', '==', _uuid]], columns, '==', [cols], 0));
      }
      for (const [table, uuids] of tableReads) {
        // The row set itself is only checkable when this replica sees the whole table.
        if (this.where.get(table)) continue;
        checks.push(
          ops.wait(
            table,
            [],
            ['_uuid'],
            '==',
            uuids.map((u) => ({ _uuid: u })),
            0,
          ),
        );
      }
      const before = this.lastTxnId;
      const result = await this.client.transact(this.opts.db, [...checks, ...queued]);
      if (
        result.ok ||
        result.error !== 'timed out' ||
        result.index === undefined ||
        result.index >= checks.length
      ) {
        return { result, value, attempts: attempt };
      }
      this.log.debug({ attempt }, 'ovsdb replica: optimistic transaction conflicted, retrying');
      if (this.lastTxnId === before) await this.nextChange(1000);
    }
    throw new ConflictError(maxAttempts);
  }
}

function emptyOf(t: { value?: unknown; min: number; max: number }): Datum {
  if (t.value !== undefined) return new Map();
  if (t.min === 0 && t.max === 1) return null;
  return [];
}

/** Column-wise equality of two replica rows. */
export function rowEquals(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!datumEquals(a[k], b[k])) return false;
  return true;
}
