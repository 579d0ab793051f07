// OVSDB client: every RFC 7047 method plus the OVS extensions (monitor_cond*, update2/3, db change awareness).
import { EventEmitter } from 'node:events';
import { Connection, type ConnectionOptions } from './connection';
import { JsonParams } from './jsonrpc/peer';
import { CanceledError, ClosedError, OvsdbError, ProtocolError, RpcError } from './errors';
import type { Remote } from './transport';
import {
  decodeRow,
  decodeTransactResult,
  encodeCondition,
  type Condition,
  type DecodedRow,
  type Operation,
  type TransactionResult,
} from './ops';
import { columnOf, parseSchema, type DatabaseSchema } from './schema';
import { encodeTransactParams } from './wire-text';

/** Options of {@link OvsdbClient}: connection options plus request defaults. */
export interface OvsdbClientOptions extends ConnectionOptions {
  /** Default timeout of every request (default: none; the connection's probe catches dead servers). */
  requestTimeoutMs?: number;
}

/** Which changes a monitor reports (all true by default). */
export interface MonitorSelect {
  initial?: boolean;
  insert?: boolean;
  delete?: boolean;
  modify?: boolean;
}

/** A condition for monitor_cond: a `[column, fn, value]` triple or a literal true/false. */
export type MonitorCondition = Condition | boolean;

/** What to monitor in one table. */
export interface MonitorRequest {
  /** Columns to report (default: all). */
  columns?: readonly string[];
  select?: MonitorSelect;
  /** monitor_cond only: rows must match every condition (default: all rows). */
  where?: readonly MonitorCondition[];
}

/** Monitor requests by table name. */
export type MonitorRequests = Readonly<Record<string, MonitorRequest | readonly MonitorRequest[]>>;

/** One row change of an `update` (monitor v1) notification. */
export interface RowUpdate {
  readonly old?: DecodedRow;
  readonly new?: DecodedRow;
}
/** table -> uuid -> change. */
export type TableUpdates = Record<string, Record<string, RowUpdate>>;

/** One row change of an `update2`/`update3` notification; `modify` carries the wire diff. */
export type RowUpdate2 =
  | { readonly kind: 'initial' | 'insert'; readonly row: DecodedRow }
  | { readonly kind: 'delete'; readonly row: DecodedRow | undefined }
  | { readonly kind: 'modify'; readonly diff: Readonly<Record<string, unknown>> };
export type TableUpdates2 = Record<string, Record<string, RowUpdate2>>;

/** Result of monitor_cond_since. */
export interface MonitorSinceResult {
  /** True when the server still had `lastTxnId`: `updates` is then only what changed since. */
  readonly found: boolean;
  readonly lastTxnId: string;
  readonly updates: TableUpdates2;
}

/** Events of {@link OvsdbClient}. */
export interface OvsdbClientEvents {
  connected: [info: { reconnected: boolean }];
  disconnected: [cause: Error | undefined];
  update: [monitorId: unknown, updates: TableUpdates];
  update2: [monitorId: unknown, updates: TableUpdates2];
  update3: [monitorId: unknown, lastTxnId: string, updates: TableUpdates2];
  /** A lock requested earlier was granted. */
  locked: [lockId: string];
  /** Another client stole a lock this client held. */
  stolen: [lockId: string];
  /** The server dropped a monitor because its database changed (set_db_change_aware). */
  monitorCanceled: [monitorId: unknown];
  /** A non-fatal problem with what the server sent (bad notification, unknown reply id, ...). */
  protocolError: [err: OvsdbError];
}

/** Options of a transaction. */
export interface TransactOptions {
  timeoutMs?: number;
  /** Aborting sends a `cancel` for the pending transaction; it then resolves as failed with error "canceled". */
  signal?: AbortSignal;
}

const monitorKey = (id: unknown): string => JSON.stringify(id);

/** `value` as a JSON object, or ProtocolError naming `what` (a server's reply is checked before it is read). */
function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolError('OVSDB_BAD_MESSAGE', `${what} is not an object`, value);
  return value as Record<string, unknown>;
}

/** Decodes an `update` (monitor v1) table-updates object against `schema`. */
function decodeTableUpdates(schema: DatabaseSchema, j: unknown): TableUpdates {
  const out: TableUpdates = {};
  for (const [table, rows] of Object.entries(objectOf(j ?? {}, 'table-updates'))) {
    const t: Record<string, RowUpdate> = (out[table] = {});
    for (const [uuid, value] of Object.entries(objectOf(rows, `table-update of ${table}`))) {
      const u = objectOf(value, `row-update of ${table} ${uuid}`);
      t[uuid] = {
        ...(u.old !== undefined ? { old: decodeRow(schema, table, u.old) } : {}),
        ...(u.new !== undefined ? { new: decodeRow(schema, table, u.new) } : {}),
      };
    }
  }
  return out;
}

/** Decodes an update2 table-updates object against `schema` (rows decoded, modify diffs kept in wire form). */
function decodeTableUpdates2(schema: DatabaseSchema, j: unknown): TableUpdates2 {
  const out: TableUpdates2 = {};
  for (const [table, rows] of Object.entries(objectOf(j, 'table-updates2'))) {
    const t: Record<string, RowUpdate2> = (out[table] = {});
    for (const [uuid, value] of Object.entries(objectOf(rows, `table-update2 of ${table}`))) {
      const u = objectOf(value, `row-update2 of ${table} ${uuid}`);
      if (u.initial !== undefined) t[uuid] = { kind: 'initial', row: decodeRow(schema, table, u.initial) };
      else if (u.insert !== undefined) t[uuid] = { kind: 'insert', row: decodeRow(schema, table, u.insert) };
      else if (u.modify !== undefined) t[uuid] = { kind: 'modify', diff: u.modify as Record<string, unknown> };
      else if ('delete' in u) t[uuid] = { kind: 'delete', row: u.delete ? decodeRow(schema, table, u.delete) : undefined };
      else throw new ProtocolError('OVSDB_BAD_MESSAGE', `row update of ${table} ${uuid} has no known member`, u);
    }
  }
  return out;
}

/** The result of a transaction the client canceled (its signal aborted): a failed transaction, not an exception. */
const canceledResult = (): TransactionResult => ({
  ok: false,
  error: 'canceled',
  details: 'canceled by the client',
  index: undefined,
  operation: undefined,
  results: [],
});

/**
 * A client for one OVSDB server. Values are checked against the database schema before anything is
 * sent; transaction outcomes are {@link TransactionResult}s, so a failed transaction cannot be taken
 * for a successful one.
 *
 * @example
 * ```ts
 * const client = await OvsdbClient.connect('unix:/var/run/openvswitch/db.sock');
 * const r = await client.transact('Open_vSwitch', [ops.select('Bridge', [['name', '==', 'br-int']])]);
 * if (r.ok) console.log(r.results[0]);
 * client.close();
 * ```
 */
export class OvsdbClient extends EventEmitter<OvsdbClientEvents> {
  readonly connection: Connection;
  private readonly schemas = new Map<string, Promise<DatabaseSchema>>();
  /**
   * The schemas of `schemas` that have arrived: transact and update notifications use them without
   * an await (each await is a turn of the microtask queue on every call of an awaited caller).
   */
  private readonly loadedSchemas = new Map<string, DatabaseSchema>();
  /** Update notifications whose decoding waits for a schema (later ones wait behind them). */
  private decodesWaiting = 0;
  private readonly monitors = new Map<string, string>(); // monitor id -> db
  private readonly opts: OvsdbClientOptions;

  constructor(remote: Remote, opts: OvsdbClientOptions = {}) {
    super();
    this.opts = opts;
    this.connection = new Connection(remote, opts);
    this.connection.on('connected', (i) => this.emit('connected', i));
    this.connection.on('disconnected', (c) => {
      // Monitors and locks live in the session: they are gone with it (a Replica re-creates its monitor).
      this.monitors.clear();
      this.emit('disconnected', c);
    });
    this.connection.on('protocolError', (e) => this.emit('protocolError', e));
    this.connection.on('notification', (m, p) => this.onNotification(m, p));
  }

  /** Creates a client and waits for its first session. */
  static async connect(remote: Remote, opts: OvsdbClientOptions = {}): Promise<OvsdbClient> {
    const c = new OvsdbClient(remote, opts);
    await c.connection.connect();
    return c;
  }

  /** True while connected. */
  get isConnected(): boolean {
    return this.connection.isConnected;
  }

  /** Resolves when a session is up (at once if it already is); rejects if the client is closed first. */
  whenConnected(): Promise<void> {
    if (this.isConnected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onUp = (): void => {
        this.connection.off('disconnected', onDown);
        resolve();
      };
      const onDown = (cause: Error | undefined): void => {
        if (cause instanceof ClosedError) {
          this.connection.off('connected', onUp);
          this.connection.off('disconnected', onDown);
          reject(cause);
        }
      };
      this.connection.once('connected', onUp);
      this.connection.on('disconnected', onDown);
    });
  }

  private request<T>(method: string, params: unknown[] | JsonParams, timeoutMs?: number): Promise<T> {
    const t = timeoutMs ?? this.opts.requestTimeoutMs;
    return this.connection.request<T>(method, params, t === undefined ? {} : { timeoutMs: t });
  }

  /** `list_dbs`: names of the databases the server serves. */
  async listDbs(): Promise<string[]> {
    const r = await this.request<unknown>('list_dbs', []);
    if (!Array.isArray(r) || !r.every((x) => typeof x === 'string')) {
      throw new ProtocolError('OVSDB_BAD_REPLY', 'list_dbs reply is not an array of strings', r);
    }
    return r as string[];
  }

  /** `get_schema`, parsed; cached per database until {@link forgetSchema}. */
  getSchema(db: string): Promise<DatabaseSchema> {
    let p = this.schemas.get(db);
    if (!p) {
      const fetched = this.getSchemaJson(db).then(parseSchema);
      p = fetched;
      fetched.then(
        (schema) => {
          if (this.schemas.get(db) === fetched) this.loadedSchemas.set(db, schema);
        },
        () => {
          if (this.schemas.get(db) === fetched) this.schemas.delete(db);
        },
      );
      this.schemas.set(db, p);
    }
    return p;
  }

  /** Uses a known schema for `db` instead of fetching it (e.g. the bundled vswitch schema). */
  useSchema(db: string, schema: DatabaseSchema): void {
    this.schemas.set(db, Promise.resolve(schema));
    this.loadedSchemas.set(db, schema);
  }

  /** Drops the cached schema of `db` (after a schema conversion). */
  forgetSchema(db: string): void {
    this.schemas.delete(db);
    this.loadedSchemas.delete(db);
  }

  /** `get_schema` as the server sent it. */
  getSchemaJson(db: string): Promise<unknown> {
    return this.request<unknown>('get_schema', [db]);
  }

  /**
   * `transact`: encodes and validates the operations (throws {@link SchemaValueError} before sending
   * anything when a value violates the schema), sends them, and returns a typed result. Connection loss
   * rejects with {@link DisconnectedError}: the outcome is then unknown, so retry only idempotent work.
   */
  async transact(
    db: string,
    operations: readonly Operation[],
    opts: TransactOptions = {},
  ): Promise<TransactionResult> {
    const schema = this.loadedSchemas.get(db) ?? (await this.getSchema(db));
    // The operations' JSON text as bytes, checked and written in one pass (see wire-text.ts).
    const wire = new JsonParams(encodeTransactParams(schema, db, operations));
    if (opts.signal?.aborted) {
      return canceledResult();
    }
    const id = this.connection.nextRequestId();
    // ovsdb-server (3.1) drops a canceled transaction without replying unless the session is
    // db-change-aware, so the client stops waiting itself and ignores any late reply.
    const onAbort = (): void => {
      if (id === undefined) return;
      if (this.connection.isConnected) this.cancel(id);
      this.connection.abandon(id, new CanceledError('transact'));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reply = await this.request<unknown>('transact', wire, opts.timeoutMs);
      return decodeTransactResult(schema, operations, reply);
    } catch (err) {
      // The server reports a canceled or malformed transaction as a JSON-RPC error: still a failed transaction.
      if (err instanceof CanceledError) {
        return canceledResult();
      }
      if (err instanceof RpcError) {
        const e = err.error as { error?: unknown; details?: unknown } | string;
        const error = typeof e === 'string' ? e : typeof e?.error === 'string' ? e.error : JSON.stringify(e);
        const details = typeof e === 'object' && typeof e?.details === 'string' ? e.details : undefined;
        return {
          ok: false,
          error,
          ...(details !== undefined ? { details } : {}),
          index: undefined,
          operation: undefined,
          results: [],
        };
      }
      throw err;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** `transact` with pre-encoded wire operations and the raw reply (no schema involved). */
  transactRaw(db: string, wireOperations: readonly unknown[]): Promise<unknown> {
    return this.request<unknown>('transact', [db, ...wireOperations]);
  }

  /** `cancel`: asks the server to abandon the pending request with JSON-RPC id `id`. */
  cancel(id: unknown): void {
    this.connection.notify('cancel', [id]);
  }

  /** `echo`: resolves with the parameters the server echoed back. */
  async echo(...params: unknown[]): Promise<unknown[]> {
    const r = await this.request<unknown>('echo', params);
    if (!Array.isArray(r)) throw new ProtocolError('OVSDB_BAD_REPLY', 'echo reply is not an array', r);
    return r;
  }

  private async encodeMonitorRequests(
    db: string,
    requests: MonitorRequests,
    cond: boolean,
  ): Promise<Record<string, unknown[]>> {
    const schema = await this.getSchema(db);
    const out: Record<string, unknown[]> = {};
    for (const [table, r] of Object.entries(requests)) {
      const list = (Array.isArray(r) ? r : [r]) as readonly MonitorRequest[];
      out[table] = list.map((req) => {
        const o: Record<string, unknown> = {};
        if (req.columns) {
          for (const c of req.columns) columnOf(schema, table, c); // unknown columns fail here, not on the server
          o.columns = [...req.columns];
        }
        if (req.select) o.select = req.select;
        if (req.where) {
          if (!cond)
            throw new OvsdbError(
              'OVSDB_BAD_REQUEST',
              `monitor (v1) does not support conditions on ${table}; use monitorCond`,
            );
          o.where = req.where.map((c) => (typeof c === 'boolean' ? c : encodeCondition(schema, table, c)));
        }
        return o;
      });
    }
    return out;
  }

  private async decodeUpdates(db: string, j: unknown): Promise<TableUpdates> {
    return decodeTableUpdates(await this.getSchema(db), j);
  }

  /** Decodes an update2 table-updates object (rows decoded, modify diffs kept in wire form). */
  async decodeUpdates2(db: string, j: unknown): Promise<TableUpdates2> {
    return decodeTableUpdates2(await this.getSchema(db), j);
  }

  /** `monitor` (RFC 7047): returns the initial contents; later changes arrive as `update` events. */
  monitor(db: string, monitorId: unknown, requests: MonitorRequests): Promise<TableUpdates> {
    return this.startMonitor(db, monitorId, requests, false, async (reqs) => this.decodeUpdates(db, await this.request('monitor', [db, monitorId, reqs])));
  }

  /** `monitor_cond` (OVS): conditional monitoring with update2 notifications. */
  monitorCond(db: string, monitorId: unknown, requests: MonitorRequests): Promise<TableUpdates2> {
    return this.startMonitor(db, monitorId, requests, true, async (reqs) => this.decodeUpdates2(db, await this.request('monitor_cond', [db, monitorId, reqs])));
  }

  /**
   * `monitor_cond_since` (OVS): like monitorCond, but when the server still knows `lastTxnId` only the
   * changes since then are sent (`found: true`). Updates then arrive as `update3` events.
   */
  monitorCondSince(
    db: string,
    monitorId: unknown,
    requests: MonitorRequests,
    lastTxnId: string | undefined,
  ): Promise<MonitorSinceResult> {
    return this.startMonitor(db, monitorId, requests, true, async (reqs) => {
      const r = await this.request<unknown>('monitor_cond_since', [
        db,
        monitorId,
        reqs,
        lastTxnId ?? '00000000-0000-0000-0000-000000000000',
      ]);
      if (!Array.isArray(r) || r.length !== 3 || typeof r[0] !== 'boolean' || typeof r[1] !== 'string') {
        throw new ProtocolError(
          'OVSDB_BAD_REPLY',
          'monitor_cond_since reply is not [found, last-txn-id, updates]',
          r,
        );
      }
      return { found: r[0], lastTxnId: r[1], updates: await this.decodeUpdates2(db, r[2]) };
    });
  }

  /**
   * Encodes `requests`, registers `monitorId` for `db` (its updates may arrive before the reply)
   * and runs `start`; a failed start unregisters the monitor.
   */
  private async startMonitor<T>(db: string, monitorId: unknown, requests: MonitorRequests, conditional: boolean, start: (reqs: unknown) => Promise<T>): Promise<T> {
    const reqs = await this.encodeMonitorRequests(db, requests, conditional);
    this.monitors.set(monitorKey(monitorId), db);
    try {
      return await start(reqs);
    } catch (err) {
      this.monitors.delete(monitorKey(monitorId));
      throw err;
    }
  }

  /**
   * `monitor_cond_change` (OVS): replaces the conditions (and optionally columns) of a monitor; the
   * resulting row changes arrive as update2/update3 events under `newMonitorId`.
   */
  async monitorCondChange(
    monitorId: unknown,
    newMonitorId: unknown,
    requests: MonitorRequests,
  ): Promise<void> {
    const db = this.monitors.get(monitorKey(monitorId));
    if (db === undefined)
      throw new OvsdbError('OVSDB_UNKNOWN_MONITOR', `no monitor ${JSON.stringify(monitorId)}`);
    const reqs = await this.encodeMonitorRequests(db, requests, true);
    // The server sends the resulting update under the new id before its reply: register it first.
    this.monitors.set(monitorKey(newMonitorId), db);
    try {
      await this.request('monitor_cond_change', [monitorId, newMonitorId, reqs]);
    } catch (err) {
      if (monitorKey(newMonitorId) !== monitorKey(monitorId)) this.monitors.delete(monitorKey(newMonitorId));
      throw err;
    }
    if (monitorKey(newMonitorId) !== monitorKey(monitorId)) this.monitors.delete(monitorKey(monitorId));
  }

  /** `monitor_cancel`. */
  async monitorCancel(monitorId: unknown): Promise<void> {
    await this.request('monitor_cancel', [monitorId]);
    this.monitors.delete(monitorKey(monitorId));
  }

  /** `lock`: resolves `{ locked }`; when false, a `locked` event follows once the lock is granted. */
  async lock(lockId: string): Promise<{ locked: boolean }> {
    const r = await this.request<{ locked?: unknown }>('lock', [lockId]);
    return { locked: r?.locked === true };
  }

  /** `steal`: takes the lock from its owner (who gets a `stolen` notification). */
  async steal(lockId: string): Promise<{ locked: boolean }> {
    const r = await this.request<{ locked?: unknown }>('steal', [lockId]);
    return { locked: r?.locked === true };
  }

  /** `unlock`. */
  async unlock(lockId: string): Promise<void> {
    await this.request('unlock', [lockId]);
  }

  /**
   * `set_db_change_aware` (OVS): when true the server keeps this session open across schema
   * conversions and database removal, canceling monitors with `monitor_canceled` instead.
   */
  async setDbChangeAware(aware = true): Promise<void> {
    await this.request('set_db_change_aware', [aware]);
  }

  private onNotification(method: string, params: unknown[]): void {
    const bad = (why: string): void => {
      this.emit(
        'protocolError',
        new ProtocolError('OVSDB_BAD_MESSAGE', `${method} notification: ${why}`, params),
      );
    };
    const dbOf = (id: unknown): string | undefined => this.monitors.get(monitorKey(id));
    /**
     * Decodes and emits the updates, or reports a protocol error when they do not decode: at once
     * when the schema is loaded and no earlier notification still waits for it (order is kept),
     * else once the schema arrives.
     */
    const relay = <T>(db: string, decode: (schema: DatabaseSchema) => T, emit: (u: T) => void): void => {
      const schema = this.loadedSchemas.get(db);
      if (schema !== undefined && this.decodesWaiting === 0) {
        let u: T;
        try {
          u = decode(schema);
        } catch (e) {
          return bad((e as Error).message);
        }
        emit(u);
        return;
      }
      this.decodesWaiting++;
      this.getSchema(db)
        .then(decode)
        .finally(() => this.decodesWaiting--)
        .then(emit, (e: Error) => bad(e.message));
    };
    switch (method) {
      case 'update': {
        const db = dbOf(params[0]);
        if (db === undefined) return bad('unknown monitor id');
        return relay(db, (s) => decodeTableUpdates(s, params[1]), (u) => this.emit('update', params[0], u));
      }
      case 'update2': {
        const db = dbOf(params[0]);
        if (db === undefined) return bad('unknown monitor id');
        return relay(db, (s) => decodeTableUpdates2(s, params[1]), (u) => this.emit('update2', params[0], u));
      }
      case 'update3': {
        const db = dbOf(params[0]);
        if (db === undefined || typeof params[1] !== 'string') return bad('unknown monitor id or bad txn id');
        return relay(db, (s) => decodeTableUpdates2(s, params[2]), (u) => this.emit('update3', params[0], params[1] as string, u));
      }
      case 'locked':
      case 'stolen':
        if (typeof params[0] !== 'string') return bad('lock id is not a string');
        this.emit(method, params[0]);
        return;
      case 'monitor_canceled':
        this.monitors.delete(monitorKey(params[0]));
        this.emit('monitorCanceled', params[0]);
        return;
      default:
        bad('unknown notification');
    }
  }

  /** Closes the client: pending requests fail with a typed error, reconnecting stops. */
  close(): void {
    this.connection.close();
    this.monitors.clear();
  }
}
