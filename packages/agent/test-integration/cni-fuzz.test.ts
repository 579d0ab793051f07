// Fuzzing the running agent's CNI server: generated requests go over its real unix socket as the
// switchyard-cni plugin sends them (gRPC, JSON body), to an agent on a real OVS. Every bad request is
// answered with the spec error this file expects (code, and a msg naming the field); after each
// batch the agent still answers a DEL and a CHECK correctly. No request may attach a pod: the netns
// values are never network namespaces. Runs: FUZZ_RUNS / 20 batches (default 100); seed: FUZZ_SEED.
import { statSync } from 'node:fs';
import fc from 'fast-check';
import { Testbed } from '@switchyard/testbed';
import { CNI_METHODS, CNI_SERVICE, SUPPORTED_CNI_VERSIONS, type CniCommand, type CniReply } from '../src/cni/spec';
import { grpcUnary } from '../src/cni/plugin/grpc-client';
import { startNode, stopNode, type Node } from './helpers';

const batches = Math.max(10, Math.ceil(Number(process.env.FUZZ_RUNS ?? 2000) / 20));
let tb: Testbed;
let node: Node | undefined;

beforeAll(async () => {
  tb = await Testbed.create();
  node = await startNode(tb, '10.91.0.0/24');
});
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const send = async (command: CniCommand, body: string): Promise<CniReply> =>
  JSON.parse((await grpcUnary(node!.socket, `/${CNI_SERVICE}/${CNI_METHODS[command]}`, Buffer.from(body), 10_000)).toString('utf8')) as CniReply;

// ---------------------------------------------------------------------------------------------
// The oracle: the spec error a request must get, in the order the CNI spec's checks apply.

type Want = { ok: true } | { code: number; names: RegExp };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const IPAM = ['switchyard-cni', 'switchyard'];

function prevResultError(p: unknown): Want | undefined {
  if (!isObject(p)) return { code: 7, names: /prevResult/ };
  for (const [key, field] of [['ips', 'address'], ['interfaces', 'name']] as const) {
    const list = Array.isArray(p[key]) ? (p[key] as unknown[]) : [];
    const i = list.findIndex((x) => !isObject(x) || typeof x[field] !== 'string');
    if (i >= 0) return { code: 7, names: new RegExp(`prevResult\\.${key}\\[${i}\\]\\.${field}`) };
  }
  return undefined;
}

function expected(command: CniCommand, body: string): Want {
  let req: unknown;
  try {
    req = JSON.parse(body);
  } catch {
    return { code: 6, names: /JSON/ };
  }
  if (typeof req !== 'object' || req === null) return { code: 6, names: /JSON object/ };
  const o = req as Record<string, unknown>;
  const s = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  if (!s('containerId')) return { code: 4, names: /CNI_CONTAINERID/ };
  if (!s('ifname')) return { code: 4, names: /CNI_IFNAME/ };
  if (command !== 'DEL' && !s('netns')) return { code: 4, names: /CNI_NETNS/ };
  let conf: unknown;
  try {
    conf = JSON.parse(s('stdin'));
  } catch {
    return { code: 6, names: /network configuration/ };
  }
  if (!isObject(conf)) return { code: 7, names: /network configuration/ };
  for (const k of ['cniVersion', 'name', 'type']) if (typeof conf[k] !== 'string' || conf[k] === '') return { code: 7, names: new RegExp(`"${k}"`) };
  if (!SUPPORTED_CNI_VERSIONS.includes(conf.cniVersion as string)) return { code: 1, names: /CNI version/ };
  const args = new Map<string, string>();
  for (const part of s('args').split(';').filter(Boolean)) {
    if (part.indexOf('=') <= 0) return { code: 4, names: /CNI_ARGS/ };
    args.set(part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1));
  }
  if (command !== 'DEL' && (!args.get('K8S_POD_NAME') || !args.get('K8S_POD_NAMESPACE'))) return { code: 4, names: /CNI_ARGS/ };
  const ipam = conf.ipam;
  if (isObject(ipam) && typeof ipam.type === 'string' && IPAM.includes(ipam.type) && !IPAM.includes(conf.type as string)) {
    const pools = ipam.ippools;
    if (pools !== undefined && (!Array.isArray(pools) || pools.some((p) => typeof p !== 'string' || p === ''))) return { code: 7, names: /ipam\.ippools/ };
    if (command === 'CHECK') {
      if (conf.prevResult === undefined) return { code: 7, names: /prevResult/ };
      const bad = prevResultError(conf.prevResult);
      if (bad) return bad;
    }
    // This agent runs without the AntreaIPAM pools.
    return { code: 7, names: /IPAM mode/ };
  }
  if (command === 'DEL') return { ok: true };
  if (command === 'CHECK' && conf.prevResult === undefined) return { code: 7, names: /prevResult/ };
  if (conf.prevResult !== undefined) {
    const bad = prevResultError(conf.prevResult);
    if (bad) return bad;
  }
  if (command === 'CHECK') return { code: 3, names: /container .* is not attached/ };
  let exists = true;
  try {
    statSync(s('netns'));
  } catch {
    exists = false;
  }
  return exists ? { code: 4, names: /CNI_NETNS/ } : { code: 3, names: /network namespace/ };
}

// ---------------------------------------------------------------------------------------------
// Requests: mostly almost-valid, one thing wrong; some raw bytes.

/** The valid value most of the time, so that requests get past the first checks. */
const mostly = <T>(valid: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: bad });
const version = mostly(fc.constantFrom(...SUPPORTED_CNI_VERSIONS), fc.oneof(fc.constantFrom('0.2.0', ''), fc.jsonValue()));
/** Never a network namespace (an ADD must not attach anything): missing paths, plain files, directories. */
const netns = mostly(fc.constantFrom('/', '/etc/hostname', '/var/run/netns/sy-fuzz-none', '/proc/self/ns'), fc.oneof(fc.constant(''), fc.string().filter((x) => !x.includes('ns')), fc.jsonValue()));
const prevResult = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      cniVersion: fc.jsonValue(),
      interfaces: fc.oneof(fc.array(fc.record({ name: fc.oneof(fc.constant('eth0'), fc.jsonValue()), mac: fc.jsonValue() }, { requiredKeys: [] }), { maxLength: 2 }), fc.jsonValue()),
      ips: fc.oneof(fc.array(fc.record({ address: fc.oneof(fc.constant('10.91.0.9/24'), fc.jsonValue()) }, { requiredKeys: [] }), { maxLength: 2 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  ),
);
const netConf = fc.oneof(
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.json()) },
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          cniVersion: version,
          name: mostly(fc.constant('switchyard'), fc.jsonValue()),
          type: mostly(fc.constantFrom('switchyard-cni', 'switchyard-cni', 'macvlan'), fc.jsonValue()),
          prevResult,
          ipam: fc.oneof(fc.record({ type: fc.constantFrom('switchyard-cni', 'host-local'), ippools: fc.oneof(fc.constant(['p1']), fc.jsonValue()) }, { requiredKeys: [] }), fc.jsonValue()),
        },
        { requiredKeys: ['cniVersion', 'name', 'type'] },
      )
      .map((o) => JSON.stringify(o)),
  },
);
const args = mostly(fc.constantFrom('K8S_POD_NAME=p;K8S_POD_NAMESPACE=d', 'IgnoreUnknown=1;K8S_POD_NAMESPACE=d;K8S_POD_NAME=p'), fc.oneof(fc.constantFrom('K8S_POD_NAME=p', ''), fc.string()));
const request = fc.oneof(
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.json(), fc.constantFrom('null', 'false', '0', '""', '[]', '7', '')) },
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          containerId: mostly(fc.oneof(fc.constant('c-fuzz'), fc.string({ minLength: 1 })), fc.jsonValue()),
          netns,
          ifname: mostly(fc.constant('eth0'), fc.jsonValue()),
          args,
          path: fc.jsonValue(),
          stdin: netConf,
        },
        { requiredKeys: ['containerId', 'netns', 'ifname', 'args', 'stdin'] },
      )
      .map((o) => JSON.stringify(o)),
  },
);
const command = fc.constantFrom<CniCommand>('ADD', 'DEL', 'CHECK');

describe('the running CNI server under generated requests', () => {
  test('answers each bad request with its spec error and keeps answering good ones', async () => {
    const conf = JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni' });
    const good = { containerId: 'c-nothing', netns: '/var/run/netns/none', ifname: 'eth0', args: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=d', stdin: conf };
    let requests = 0;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(command, request), { minLength: 1, maxLength: 8 }), async (batch) => {
        // Sent at once, as a runtime's parallel calls arrive.
        const replies = await Promise.all(batch.map(([cmd, body]) => send(cmd, body)));
        requests += batch.length;
        for (const [i, [cmd, body]] of batch.entries()) {
          const want = expected(cmd, body);
          seen.add('ok' in want ? 'ok' : `${want.code} ${want.names.source}`);
          const got = replies[i]!;
          if ('ok' in want) {
            expect(got).toEqual({});
            continue;
          }
          expect(got.result).toBeUndefined();
          expect(got.error?.code).toBe(want.code);
          expect(got.error?.msg).toMatch(want.names);
        }
        // The agent is still there: a DEL of nothing succeeds, a CHECK of nothing names the container.
        expect(await send('DEL', JSON.stringify(good))).toEqual({});
        const check = await send('CHECK', JSON.stringify({ ...good, stdin: JSON.stringify({ ...JSON.parse(conf), prevResult: { cniVersion: '1.0.0' } }) }));
        expect(check.error).toMatchObject({ code: 3, msg: 'container c-nothing is not attached' });
      }),
      { numRuns: batches },
    );
    expect(requests).toBeGreaterThan(batches);
    // The generator reaches every stage: request shape, configuration, CNI_ARGS, prevResult, the pod datapath.
    for (const outcome of ['ok', '6 JSON', '4 CNI_IFNAME', '7 "type"', '1 CNI version', '4 CNI_ARGS', '7 ipam\\.ippools', '7 IPAM mode', '3 network namespace', '4 CNI_NETNS', '3 container .* is not attached']) {
      expect([...seen]).toContain(outcome);
    }
  }, 600_000);
});
