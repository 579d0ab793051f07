// Model-based test: random insert/update/mutate/delete sequences through the client keep the replica
// equal to a simple in-memory model (fast-check commands, real ovsdb-server).
import fc from 'fast-check';
import { Replica, ops, namedUuid, unwrap, type OvsdbClient } from '../src/index';
import { ovsClientSuite, until } from './helpers';

const DB = 'Open_vSwitch';
let client: OvsdbClient;
let replica: Replica;
ovsClientSuite((s) => ({ client } = s), {
  setup: () => {
    replica = new Replica(client, {
      db: DB,
      tables: { Bridge: { columns: ['name', 'external_ids', 'stp_enable'] } },
    });
    return replica.start();
  },
  teardown: async () => replica?.stop(),
});

interface Model {
  prefix: string;
  bridges: Map<string, { ids: Map<string, string>; stp: boolean }>;
}
let executed = 0;
interface Real {
  prefix: string;
}

function replicaView(prefix: string): Map<string, { ids: Map<string, string>; stp: boolean }> {
  const out = new Map<string, { ids: Map<string, string>; stp: boolean }>();
  for (const r of replica.list('Bridge')) {
    const name = r.name as string;
    if (name.startsWith(prefix))
      out.set(name, { ids: new Map(r.external_ids as Map<string, string>), stp: r.stp_enable as boolean });
  }
  return out;
}

async function settle(m: Model): Promise<void> {
  executed++;
  const same = (): boolean => {
    const v = replicaView(m.prefix);
    if (v.size !== m.bridges.size) return false;
    for (const [k, b] of m.bridges) {
      const r = v.get(k);
      if (!r || r.stp !== b.stp || r.ids.size !== b.ids.size) return false;
      for (const [ik, iv] of b.ids) if (r.ids.get(ik) !== iv) return false;
    }
    return true;
  };
  await until(replica, same, 5000);
  expect(replicaView(m.prefix)).toEqual(m.bridges);
}

const key = fc.constantFrom('a', 'b', 'c', 'd');
const val = fc.string({ minLength: 0, maxLength: 6 });
const idx = fc.nat(4);

class InsertBridge implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => !m.bridges.has(`${m.prefix}${this.i}`);
  async run(m: Model, r: Real): Promise<void> {
    const name = `${r.prefix}${this.i}`;
    unwrap(
      await client.transact(DB, [
        ops.insert('Bridge', { name }, { uuidName: 'b' }),
        ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('b')]]]),
      ]),
    );
    m.bridges.set(name, { ids: new Map(), stp: false });
    await settle(m);
  }
  toString = () => `insert(${this.i})`;
}

class UpdateBridge implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly ids: Record<string, string>,
    readonly stp: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.bridges.has(`${m.prefix}${this.i}`);
  async run(m: Model, r: Real): Promise<void> {
    const name = `${r.prefix}${this.i}`;
    const res = unwrap(
      await client.transact(DB, [
        ops.update('Bridge', [['name', '==', name]], { external_ids: this.ids, stp_enable: this.stp }),
      ]),
    );
    expect(res.results[0]).toEqual({ op: 'update', count: 1 });
    m.bridges.set(name, { ids: new Map(Object.entries(this.ids)), stp: this.stp });
    await settle(m);
  }
  toString = () => `update(${this.i}, ${JSON.stringify(this.ids)}, ${this.stp})`;
}

class MutateBridge implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly insert: Record<string, string>,
    readonly remove: string[],
  ) {}
  check = (m: Readonly<Model>) => m.bridges.has(`${m.prefix}${this.i}`);
  async run(m: Model, r: Real): Promise<void> {
    const name = `${r.prefix}${this.i}`;
    unwrap(
      await client.transact(DB, [
        ops.mutate(
          'Bridge',
          [['name', '==', name]],
          [
            ['external_ids', 'delete', this.remove],
            ['external_ids', 'insert', this.insert],
          ],
        ),
      ]),
    );
    const b = m.bridges.get(name)!;
    for (const k of this.remove) b.ids.delete(k);
    // OVSDB map "insert" never overwrites an existing key.
    for (const [k, v] of Object.entries(this.insert)) if (!b.ids.has(k)) b.ids.set(k, v);
    await settle(m);
  }
  toString = () => `mutate(${this.i}, +${JSON.stringify(this.insert)}, -${JSON.stringify(this.remove)})`;
}

class DeleteBridge implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.bridges.has(`${m.prefix}${this.i}`);
  async run(m: Model, r: Real): Promise<void> {
    const name = `${r.prefix}${this.i}`;
    const sel = unwrap(await client.transact(DB, [ops.select('Bridge', [['name', '==', name]], ['_uuid'])]));
    const uuid = sel.results[0]?.op === 'select' ? (sel.results[0].rows[0]?._uuid as string) : '';
    unwrap(await client.transact(DB, [ops.mutate('Open_vSwitch', [], [['bridges', 'delete', [uuid]]])]));
    m.bridges.delete(name);
    await settle(m);
  }
  toString = () => `delete(${this.i})`;
}

let runNo = 0;
let total = 0;
test('random insert/update/mutate/delete sequences keep the replica equal to the model', async () => {
  const commands = [
    idx.map((i) => new InsertBridge(i)),
    fc
      .tuple(idx, fc.dictionary(key, val, { maxKeys: 3 }), fc.boolean())
      .map(([i, ids, stp]) => new UpdateBridge(i, ids, stp)),
    fc
      .tuple(idx, fc.dictionary(key, val, { maxKeys: 3 }), fc.uniqueArray(key, { maxLength: 2 }))
      .map(([i, ins, rm]) => new MutateBridge(i, ins, rm)),
    idx.map((i) => new DeleteBridge(i)),
  ];
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: 'max' }), async (cmds) => {
      const prefix = `m${runNo++}-`;
      total += [...cmds].length;
      await fc.asyncModelRun(() => ({ model: { prefix, bridges: new Map() }, real: { prefix } }), cmds);
    }),
    { numRuns: 50 },
  );
  // The generated sequences really exercised the server (commands whose bridge is missing are skipped).
  expect(total).toBeGreaterThan(300);
  expect(executed).toBeGreaterThan(200);
});
