// Open_vSwitch helpers for the agent: idempotent "ensure" operations on bridges, ports and interfaces.
import type { OvsdbClient } from '../client';
import { OvsdbError, TimeoutError, TransactionError } from '../errors';
import { silentLogger, type Logger } from '@switchyard/runtime';
import {
  operationsFor,
  ops as anyOp,
  unwrap,
  type DecodedRow,
  type Operation,
  type TransactionResult,
} from '../ops';
import { parseSchema, type DatabaseSchema } from '../schema';
import { namedUuid } from '../values';
import { VSWITCH_DB, type VswitchTables } from '../gen/vswitch';
import { vswitchSchemaJson } from '../gen/vswitch-schema';

const op = operationsFor<VswitchTables>();
// The row types are read-only Maps/arrays; writes accept the same shapes (or plain objects, see values.ts).
type W = Record<string, unknown>;

/** Interface types the helpers accept. `stt` is accepted as configuration only (no STT on OVS 3.1 userspace). */
export type InterfaceType = '' | 'system' | 'internal' | 'geneve' | 'vxlan' | 'gre' | 'patch' | 'stt';
const INTERFACE_TYPES: ReadonlySet<string> = new Set([
  '',
  'system',
  'internal',
  'geneve',
  'vxlan',
  'gre',
  'patch',
  'stt',
]);

/** OpenFlow versions as the Bridge.protocols column names them. */
export type OpenFlowProtocol =
  | 'OpenFlow10'
  | 'OpenFlow11'
  | 'OpenFlow12'
  | 'OpenFlow13'
  | 'OpenFlow14'
  | 'OpenFlow15';

/** Errors of the Open_vSwitch helpers. */
export class VSwitchError extends OvsdbError {
  /** The bridge/port/interface concerned. */
  readonly subject: string;
  constructor(
    code:
      | 'OVSDB_BRIDGE_NOT_FOUND'
      | 'OVSDB_PORT_ON_OTHER_BRIDGE'
      | 'OVSDB_INTERFACE_NOT_FOUND'
      | 'OVSDB_OFPORT_FAILED'
      | 'OVSDB_BAD_INTERFACE_TYPE'
      | 'OVSDB_BAD_MAC',
    message: string,
    name: string,
  ) {
    super(code, message);
    this.subject = name;
  }
}

/** Desired state of a bridge. Omitted fields are left as they are (or at OVS defaults on creation). */
export interface BridgeSpec {
  /** `netdev` for the userspace datapath, `system` for the kernel one. */
  datapathType?: string;
  failMode?: 'secure' | 'standalone';
  protocols?: readonly OpenFlowProtocol[];
  /** Replaces the bridge's other_config. */
  otherConfig?: Readonly<Record<string, string>>;
  /** Replaces the bridge's external_ids. */
  externalIds?: Readonly<Record<string, string>>;
}

/** Desired state of a port with one interface of the same name. */
export interface PortSpec {
  type?: InterfaceType;
  /** Replaces Interface.options (e.g. `{ remote_ip: 'flow', key: 'flow' }`, `{ peer: 'patch-x' }`). */
  options?: Readonly<Record<string, string>>;
  /** Replaces Port.external_ids (and Interface.external_ids unless interfaceExternalIds is given). */
  externalIds?: Readonly<Record<string, string>>;
  interfaceExternalIds?: Readonly<Record<string, string>>;
  /** Interface.ofport_request (1..65279). */
  ofportRequest?: number;
  /** Interface.mtu_request. */
  mtuRequest?: number;
  /**
   * Interface.mac: the Ethernet address OVS gives an internal interface whenever it creates it
   * (e.g. each time ovs-vswitchd restarts with the userspace datapath, whose internal ports are
   * tap devices that die with it).
   */
  mac?: string;
}

/** A port found by {@link VSwitch.findPortsByExternalIds}. */
export interface PortInfo {
  readonly uuid: string;
  readonly name: string;
  readonly externalIds: ReadonlyMap<string, string>;
  readonly interfaces: readonly string[];
}

/** Result of an ensure operation. */
export interface Ensured {
  readonly uuid: string;
  /** True when this call created it, false when it existed (and was brought to the desired state). */
  readonly created: boolean;
}

const entries = (m: Readonly<Record<string, string>> | undefined): Map<string, string> | undefined =>
  m === undefined ? undefined : new Map(Object.entries(m));

function mapEquals(a: unknown, b: Map<string, string>): boolean {
  if (!(a instanceof Map) || a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
}

/**
 * High-level operations on the Open_vSwitch database. Every `ensure*` converges to the requested
 * state and is safe to repeat (e.g. after a {@link DisconnectedError} whose outcome is unknown).
 */
export class VSwitch {
  readonly db = VSWITCH_DB;
  private readonly log: Logger;

  /**
   * @param client connected client
   * @param opts.useBundledSchema validate against the vswitch schema shipped with this package instead
   *   of fetching it from the server (saves a round trip; the server must run the same schema version).
   */
  constructor(
    readonly client: OvsdbClient,
    opts: { logger?: Logger; useBundledSchema?: boolean } = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    if (opts.useBundledSchema) client.useSchema(VSWITCH_DB, bundledVswitchSchema());
  }

  private run(operations: Operation[]): Promise<TransactionResult> {
    return this.client.transact(this.db, operations);
  }

  private async selectOne(
    table: keyof VswitchTables,
    name: string,
    columns?: string[],
  ): Promise<DecodedRow | undefined> {
    const r = unwrap(await this.run([anyOp.select(table, [['name', '==', name]], columns)]));
    const res = r.results[0];
    return res?.op === 'select' ? res.rows[0] : undefined;
  }

  /** The Open_vSwitch root row's uuid. */
  async rootUuid(): Promise<string> {
    const r = unwrap(await this.run([op.select('Open_vSwitch', [], ['_uuid'])]));
    const res = r.results[0];
    const row = res?.op === 'select' ? res.rows[0] : undefined;
    if (!row) throw new OvsdbError('OVSDB_NO_ROOT', 'Open_vSwitch table is empty (run ovs-vsctl init)');
    return row._uuid as string;
  }

  /**
   * Creates the bridge (with its internal port and interface, as ovs-vsctl add-br does) or updates
   * an existing one to `spec`.
   */
  async ensureBridge(name: string, spec: BridgeSpec = {}): Promise<Ensured> {
    const desired: W = {};
    if (spec.datapathType !== undefined) desired.datapath_type = spec.datapathType;
    if (spec.failMode !== undefined) desired.fail_mode = spec.failMode;
    if (spec.protocols !== undefined) desired.protocols = [...spec.protocols];
    if (spec.otherConfig !== undefined) desired.other_config = entries(spec.otherConfig);
    if (spec.externalIds !== undefined) desired.external_ids = entries(spec.externalIds);
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.selectOne('Bridge', name);
      if (existing) {
        const changes: W = {};
        for (const [k, v] of Object.entries(desired)) {
          const cur = existing[k];
          const same =
            v instanceof Map
              ? mapEquals(cur, v)
              : Array.isArray(v)
                ? Array.isArray(cur) &&
                  cur.length === v.length &&
                  v.every((x) => (cur as unknown[]).includes(x))
                : cur === v;
          if (!same) changes[k] = v;
        }
        if (Object.keys(changes).length > 0) {
          unwrap(await this.run([op.update('Bridge', [['name', '==', name]], changes as never)]));
        }
        return { uuid: existing._uuid as string, created: false };
      }
      const r = await this.run([
        op.wait('Bridge', [['name', '==', name]], ['name'], '==', [], 0),
        op.insert('Interface', { name, type: 'internal' } as W as never, { uuidName: 'iface' }),
        op.insert('Port', { name, interfaces: [namedUuid('iface')] } as W as never, { uuidName: 'port' }),
        op.insert('Bridge', { name, ports: [namedUuid('port')], ...desired } as W as never, {
          uuidName: 'br',
        }),
        op.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('br')]]]),
      ]);
      if (r.ok) return { uuid: r.uuids.br!, created: true };
      if (r.error === 'timed out' && r.index === 0) continue; // created concurrently: converge on it
      throw new TransactionError(r.error, r.details, r.index, r.operation);
    }
    throw new VSwitchError('OVSDB_BRIDGE_NOT_FOUND', `bridge ${name} kept changing while ensuring it`, name);
  }

  /** Deletes a bridge (its ports and interfaces go with it). Returns false if it did not exist. */
  async deleteBridge(name: string): Promise<boolean> {
    const br = await this.selectOne('Bridge', name, ['_uuid']);
    if (!br) return false;
    unwrap(await this.run([op.mutate('Open_vSwitch', [], [['bridges', 'delete', [br._uuid]]])]));
    return true;
  }

  private interfaceRow(name: string, spec: PortSpec): W {
    if (spec.type !== undefined && !INTERFACE_TYPES.has(spec.type)) {
      throw new VSwitchError(
        'OVSDB_BAD_INTERFACE_TYPE',
        `interface ${name}: unsupported type ${JSON.stringify(spec.type)}`,
        name,
      );
    }
    const row: W = { name };
    if (spec.type !== undefined) row.type = spec.type === 'system' ? '' : spec.type;
    if (spec.options !== undefined) row.options = entries(spec.options);
    const ifIds = spec.interfaceExternalIds ?? spec.externalIds;
    if (ifIds !== undefined) row.external_ids = entries(ifIds);
    if (spec.ofportRequest !== undefined) row.ofport_request = spec.ofportRequest;
    if (spec.mtuRequest !== undefined) row.mtu_request = spec.mtuRequest;
    if (spec.mac !== undefined) {
      if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(spec.mac)) throw new VSwitchError('OVSDB_BAD_MAC', `interface ${name}: mac ${JSON.stringify(spec.mac)} is not an Ethernet address (xx:xx:xx:xx:xx:xx)`, name);
      row.mac = spec.mac.toLowerCase();
    }
    return row;
  }

  /** Appends to `body` the operations that add a new port+interface (no existence checks). */
  private addPortOps(body: Operation[], name: string, spec: PortSpec, tag: string): void {
    const iface = this.interfaceRow(name, spec);
    const port: W = { name, interfaces: [namedUuid(`i${tag}`)] };
    if (spec.externalIds !== undefined) {
      // The interface's external_ids are the port's unless given apart: one Map for both.
      port.external_ids = spec.interfaceExternalIds === undefined ? iface.external_ids : entries(spec.externalIds);
    }
    body.push(
      op.wait('Port', [['name', '==', name]], ['name'], '==', [], 0),
      op.insert('Interface', iface as never, { uuidName: `i${tag}` }),
      op.insert('Port', port as never, { uuidName: `p${tag}` }),
    );
  }

  /**
   * Adds a port in one transaction; fails (typed result, nothing changed) if a port of that name exists.
   * Use {@link ensurePort} for idempotent convergence.
   */
  addPort(bridge: string, name: string, spec: PortSpec = {}): Promise<TransactionResult> {
    return this.addPorts(bridge, [{ name, ...spec }]);
  }

  /** Adds many ports in a single transaction (all or nothing). */
  async addPorts(
    bridge: string,
    ports: ReadonlyArray<PortSpec & { name: string }>,
  ): Promise<TransactionResult> {
    const body: Operation[] = [];
    for (let i = 0; i < ports.length; i++) this.addPortOps(body, ports[i]!.name, ports[i]!, String(i));
    body.push(
      op.mutate(
        'Bridge',
        [['name', '==', bridge]],
        [['ports', 'insert', ports.map((_p, i) => namedUuid(`p${i}`))]],
      ),
    );
    const r = await this.run(body);
    if (r.ok) {
      const last = r.results[r.results.length - 1];
      if (last?.op === 'mutate' && last.count === 0) {
        // The new rows were garbage-collected as unreferenced: the bridge is missing.
        throw new VSwitchError('OVSDB_BRIDGE_NOT_FOUND', `bridge ${bridge} does not exist`, bridge);
      }
    }
    return r;
  }

  /**
   * Ensures `bridge` has a port `name` with one interface of the same name in the given state.
   * Existing port: interface type/options/external_ids and port external_ids are updated when they
   * differ. Missing port: created in one transaction guarded by a `wait` that no such port exists,
   * so concurrent or repeated calls never create a duplicate.
   */
  async ensurePort(bridge: string, name: string, spec: PortSpec = {}): Promise<Ensured> {
    const ifDesired = this.interfaceRow(name, spec);
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = unwrap(
        await this.run([
          op.select('Bridge', [['name', '==', bridge]], ['_uuid', 'ports']),
          op.select('Port', [['name', '==', name]], ['_uuid', 'external_ids', 'interfaces']),
          op.select('Interface', [['name', '==', name]]),
        ]),
      );
      const [brRes, portRes, ifRes] = r.results;
      const br = brRes?.op === 'select' ? brRes.rows[0] : undefined;
      const port = portRes?.op === 'select' ? portRes.rows[0] : undefined;
      const iface = ifRes?.op === 'select' ? ifRes.rows[0] : undefined;
      if (!br) throw new VSwitchError('OVSDB_BRIDGE_NOT_FOUND', `bridge ${bridge} does not exist`, bridge);
      if (!port) {
        const res = await this.addPort(bridge, name, spec);
        if (res.ok) return { uuid: res.uuids.p0!, created: true };
        if (res.error === 'timed out' && res.index === 0) continue; // appeared concurrently
        throw new TransactionError(res.error, res.details, res.index, res.operation);
      }
      const portUuid = port._uuid as string;
      if (!(br.ports as string[]).includes(portUuid)) {
        throw new VSwitchError(
          'OVSDB_PORT_ON_OTHER_BRIDGE',
          `port ${name} exists on another bridge than ${bridge}`,
          name,
        );
      }
      const updates: Operation[] = [];
      if (spec.externalIds !== undefined && !mapEquals(port.external_ids, entries(spec.externalIds)!)) {
        updates.push(
          op.update('Port', [['_uuid', '==', portUuid]], {
            external_ids: entries(spec.externalIds),
          } as never),
        );
      }
      if (iface) {
        const changes: W = {};
        for (const [k, v] of Object.entries(ifDesired)) {
          if (k === 'name') continue;
          const cur = iface[k];
          if (v instanceof Map ? !mapEquals(cur, v) : cur !== v) changes[k] = v;
        }
        if (Object.keys(changes).length > 0)
          updates.push(op.update('Interface', [['_uuid', '==', iface._uuid]], changes as never));
      }
      if (updates.length > 0) unwrap(await this.run(updates));
      return { uuid: portUuid, created: false };
    }
    throw new VSwitchError(
      'OVSDB_PORT_ON_OTHER_BRIDGE',
      `port ${name} kept changing while ensuring it`,
      name,
    );
  }

  /** Removes port `name` from `bridge` (its interfaces are garbage-collected). False if absent. */
  async deletePort(bridge: string, name: string): Promise<boolean> {
    const port = await this.selectOne('Port', name, ['_uuid']);
    if (!port) return false;
    // `includes` makes the count say whether this bridge really had the port.
    const r = unwrap(
      await this.run([
        op.mutate(
          'Bridge',
          [
            ['name', '==', bridge],
            ['ports', 'includes', [port._uuid]],
          ],
          [['ports', 'delete', [port._uuid]]],
        ),
      ]),
    );
    const res = r.results[0];
    return res?.op === 'mutate' && res.count > 0;
  }

  /**
   * Waits until ovs-vswitchd assigns an OpenFlow port number to interface `name` (server-side `wait`,
   * no polling). Throws VSwitchError if vswitchd reports a failure (ofport -1) or TimeoutError.
   */
  async waitForOfport(name: string, opts: { timeoutMs?: number } = {}): Promise<number> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const r = await this.run([
      op.wait(
        'Interface',
        [['name', '==', name]],
        ['ofport'],
        '!=',
        [{ ofport: null } as W as never],
        timeoutMs,
      ),
      op.select('Interface', [['name', '==', name]], ['ofport', 'error']),
    ]);
    if (!r.ok) {
      if (r.error === 'timed out') throw new TimeoutError(`waitForOfport(${name})`, timeoutMs);
      throw new TransactionError(r.error, r.details, r.index, r.operation);
    }
    const res = r.results[1];
    const row = res?.op === 'select' ? res.rows[0] : undefined;
    if (!row) throw new VSwitchError('OVSDB_INTERFACE_NOT_FOUND', `interface ${name} does not exist`, name);
    const ofport = row.ofport as number | null;
    if (ofport === null || ofport < 0) {
      throw new VSwitchError(
        'OVSDB_OFPORT_FAILED',
        `interface ${name} got no OpenFlow port: ${String(row.error ?? 'unknown error')}`,
        name,
      );
    }
    return ofport;
  }

  /**
   * Waits until ovs-vswitchd has applied every change committed so far, as `ovs-vsctl --wait`
   * does: bumps Open_vSwitch.next_cfg, then waits (server-side `wait`, no polling) until
   * ovs-vswitchd, which copies next_cfg to cur_cfg once it has reconfigured, reaches it. A port
   * deleted before this returns is closed by the switch (its netdev flags restored). Throws
   * TimeoutError when ovs-vswitchd does not get there in time (e.g. it is not running).
   */
  async waitForSwitch(opts: { timeoutMs?: number } = {}): Promise<number> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const bumped = unwrap(
      await this.run([
        op.mutate('Open_vSwitch', [], [['next_cfg', '+=', 1]]),
        op.select('Open_vSwitch', [], ['next_cfg']),
      ]),
    );
    const res = bumped.results[1];
    const next = res?.op === 'select' ? (res.rows[0]?.next_cfg as number | undefined) : undefined;
    if (next === undefined) throw new OvsdbError('OVSDB_NO_ROOT', 'Open_vSwitch table is empty (run ovs-vsctl init)');
    // No columns: "==" with one empty row holds as soon as any row matches the where clause
    // (cur_cfg may pass `next` when another client bumped next_cfg meanwhile).
    const r = await this.run([
      op.wait('Open_vSwitch', [['cur_cfg', '>=', next]], [], '==', [{}], timeoutMs),
    ]);
    if (!r.ok) {
      if (r.error === 'timed out') throw new TimeoutError(`waitForSwitch(next_cfg ${next})`, timeoutMs);
      throw new TransactionError(r.error, r.details, r.index, r.operation);
    }
    return next;
  }

  /** Ports whose external_ids contain every given key/value pair. */
  async findPortsByExternalIds(match: Readonly<Record<string, string>>): Promise<PortInfo[]> {
    const r = unwrap(
      await this.run([
        op.select(
          'Port',
          [['external_ids', 'includes', entries(match)]],
          ['_uuid', 'name', 'external_ids', 'interfaces'],
        ),
      ]),
    );
    const res = r.results[0];
    const rows = res?.op === 'select' ? res.rows : [];
    return rows.map((row) => ({
      uuid: row._uuid as string,
      name: row.name as string,
      externalIds: row.external_ids as ReadonlyMap<string, string>,
      interfaces: row.interfaces as string[],
    }));
  }

  /** Sets keys of Open_vSwitch.external_ids (others are kept; `remove` lists keys to drop). */
  async setOpenVSwitchExternalIds(
    ids: Readonly<Record<string, string>>,
    opts: { remove?: readonly string[] } = {},
  ): Promise<void> {
    const keys = [...Object.keys(ids), ...(opts.remove ?? [])];
    unwrap(
      await this.run([
        op.mutate(
          'Open_vSwitch',
          [],
          [
            ['external_ids', 'delete', keys],
            ['external_ids', 'insert', entries(ids)],
          ],
        ),
      ]),
    );
  }

  /**
   * Sets keys of Open_vSwitch.other_config (others are kept; `remove` lists keys to drop), e.g. the
   * `certificate`, `private_key` and `ca_cert` ovs-monitor-ipsec reads.
   */
  async setOpenVSwitchOtherConfig(
    config: Readonly<Record<string, string>>,
    opts: { remove?: readonly string[] } = {},
  ): Promise<void> {
    const keys = [...Object.keys(config), ...(opts.remove ?? [])];
    unwrap(await this.run([op.mutate('Open_vSwitch', [], [['other_config', 'delete', keys], ['other_config', 'insert', entries(config)]])]));
  }

  /** The Open_vSwitch row's other_config. */
  async getOpenVSwitchOtherConfig(): Promise<ReadonlyMap<string, string>> {
    const r = unwrap(await this.run([op.select('Open_vSwitch', [], ['other_config'])]));
    const res = r.results[0];
    const row = res?.op === 'select' ? res.rows[0] : undefined;
    return (row?.other_config as ReadonlyMap<string, string> | undefined) ?? new Map();
  }

  /** The Open_vSwitch row's external_ids. */
  async getOpenVSwitchExternalIds(): Promise<ReadonlyMap<string, string>> {
    const r = unwrap(await this.run([op.select('Open_vSwitch', [], ['external_ids'])]));
    const res = r.results[0];
    const row = res?.op === 'select' ? res.rows[0] : undefined;
    return (row?.external_ids as ReadonlyMap<string, string> | undefined) ?? new Map();
  }
}

let bundled: DatabaseSchema | undefined;
/** The vswitch schema shipped with this package, parsed. */
export function bundledVswitchSchema(): DatabaseSchema {
  bundled ??= parseSchema(vswitchSchemaJson);
  return bundled;
}
