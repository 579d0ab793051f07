// The CNI gRPC server (@grpc/grpc-js) spoken to by the plugin's own http2 unary client.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CNI_SERVICE, CniError, GrpcCallError, grpcUnary, type CniReply } from '../src/index';
import { CniHandler, CniServer, KeyedSerializer, ipamModeOf, type PodOperations } from '../src/cni/server';
import { type CniResult } from '../src/cni/spec';
import { type PodRequest } from '../src/features/pods/pod-network';

const RESULT: CniResult = { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', sandbox: '/n' }], ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 0 }] };

/** Records calls; ADD of container "slow" waits until released. */
class FakePods implements PodOperations {
  calls: string[] = [];
  release: (() => void) | undefined;
  async add(req: PodRequest): Promise<CniResult> {
    this.calls.push(`add:${req.containerId}:start`);
    if (req.containerId.startsWith('slow')) await new Promise<void>((r) => (this.release = r));
    if (req.containerId === 'boom') throw new Error('veth exploded');
    if (req.containerId === 'typed') throw new CniError(3, 'no such container');
    this.calls.push(`add:${req.containerId}:end`);
    return RESULT;
  }
  async del(req: PodRequest): Promise<void> {
    this.calls.push(`del:${req.containerId}`);
  }
  async check(req: PodRequest, prev: CniResult): Promise<void> {
    this.calls.push(`check:${req.containerId}:${prev.ips?.[0]?.address}`);
  }
}

let dir: string;
let socket: string;
let server: CniServer;
let pods: FakePods;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sy-cni-'));
  socket = join(dir, 'cni.sock');
  pods = new FakePods();
  server = await CniServer.listen(socket, new CniHandler(pods));
});
afterEach(async () => {
  await server.close(100);
  rmSync(dir, { recursive: true, force: true });
});

const conf = (extra: Record<string, unknown> = {}): string => JSON.stringify({ cniVersion: '1.0.0', name: 'n', type: 'switchyard-cni', ...extra });
const request = (method: string, body: unknown): Promise<CniReply> =>
  grpcUnary(socket, `/${CNI_SERVICE}/${method}`, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), 5000).then(
    (b) => JSON.parse(b.toString()) as CniReply,
  );
const add = (containerId: string, extra: Record<string, unknown> = {}): Promise<CniReply> =>
  request('CmdAdd', { containerId, netns: '/var/run/netns/x', ifname: 'eth0', args: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=d', stdin: conf(extra) });

describe('CNI server over a unix socket', () => {
  it('is reachable by its owner only (mode 0600)', () => {
    expect(statSync(socket).mode & 0o777).toBe(0o600);
  });

  it('answers ADD with the result in the requested version', async () => {
    const r = await add('c1', { cniVersion: '0.4.0' });
    expect(JSON.parse(r.result!)).toEqual({ ...RESULT, cniVersion: '0.4.0', ips: [{ version: '4', ...RESULT.ips![0] }], dns: {} });
    expect(pods.calls).toEqual(['add:c1:start', 'add:c1:end']);
  });

  it('turns pod failures into spec errors: typed ones keep their code, others are code 100 with details', async () => {
    expect((await add('boom')).error).toEqual({ code: 100, msg: 'ADD failed', details: 'veth exploded' });
    expect((await add('typed')).error).toEqual({ code: 3, msg: 'no such container' });
  });

  it('answers garbage (not JSON, wrong shape, missing fields) with spec errors and keeps serving', async () => {
    expect((await request('CmdAdd', 'not json')).error?.code).toBe(6);
    expect((await request('CmdAdd', { containerId: 'c' })).error).toMatchObject({ code: 4, msg: 'CNI_IFNAME is required' });
    expect((await request('CmdAdd', { containerId: 'c', ifname: 'eth0', netns: '/n', stdin: '{' })).error?.code).toBe(6);
    expect((await add('ok')).result).toBeDefined();
  });

  it('DEL needs no netns and no pod identity; CHECK needs prevResult', async () => {
    expect(await request('CmdDel', { containerId: 'c2', ifname: 'eth0', stdin: conf() })).toEqual({});
    const check = { containerId: 'c2', netns: '/n', ifname: 'eth0', args: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=d' };
    expect((await request('CmdCheck', { ...check, stdin: conf() })).error).toMatchObject({ code: 7 });
    expect(await request('CmdCheck', { ...check, stdin: conf({ prevResult: RESULT }) })).toEqual({});
    expect(pods.calls).toEqual(['del:c2', 'check:c2:10.0.0.2/24']);
  });

  it('runs requests of one container in order and other containers meanwhile', async () => {
    const first = add('slow-1');
    await new Promise((r) => setTimeout(r, 50));
    const second = request('CmdDel', { containerId: 'slow-1', ifname: 'eth0', stdin: conf() });
    const other = await add('fast');
    expect(other.result).toBeDefined();
    expect(pods.calls).toEqual(['add:slow-1:start', 'add:fast:start', 'add:fast:end']);
    pods.release!();
    await Promise.all([first, second]);
    expect(pods.calls.slice(3)).toEqual(['add:slow-1:end', 'del:slow-1']);
  });

  it('an unknown method is a gRPC UNIMPLEMENTED status for the client', async () => {
    const err = await request('CmdNope', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrpcCallError);
    expect((err as GrpcCallError).status).toBe(12);
  });

  it('the client reports an absent socket without a status', async () => {
    const err = await grpcUnary(join(dir, 'absent.sock'), `/${CNI_SERVICE}/CmdAdd`, Buffer.from('{}'), 1000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrpcCallError);
    expect((err as GrpcCallError).status).toBeUndefined();
  });
});

it('KeyedSerializer runs same-key tasks in order even after a failure', async () => {
  const s = new KeyedSerializer();
  const order: number[] = [];
  const a = s.run('k', async () => {
    await new Promise((r) => setTimeout(r, 20));
    order.push(1);
    throw new Error('x');
  });
  const b = s.run('k', async () => order.push(2));
  await expect(a).rejects.toThrow('x');
  await b;
  expect(order).toEqual([1, 2]);
  await new Promise((r) => setTimeout(r, 0));
  expect(s.pending).toBe(0);
});

describe('IPAM-only mode (switchyard-cni as another plugin\'s ipam)', () => {
  it('is selected by ipam.type naming this plugin under another plugin\'s type, with the pools listed', () => {
    expect(ipamModeOf({ type: 'macvlan', ipam: { type: 'switchyard-cni', ippools: ['p1', 'p6'] } })).toEqual({ ippools: ['p1', 'p6'] });
    expect(ipamModeOf({ type: 'macvlan', ipam: { type: 'switchyard' } })).toEqual({ ippools: [] });
    expect(ipamModeOf({ type: 'switchyard-cni' })).toBeUndefined();
    expect(ipamModeOf({ type: 'switchyard-cni', ipam: { type: 'switchyard-cni' } })).toBeUndefined();
    expect(ipamModeOf({ type: 'bridge', ipam: { type: 'host-local' } })).toBeUndefined();
  });

  it('refuses ippools that are not a list of names, naming the field', () => {
    expect(() => ipamModeOf({ type: 'macvlan', ipam: { type: 'switchyard-cni', ippools: 'p1' } })).toThrow(/ipam\.ippools must be a list/);
    expect(() => ipamModeOf({ type: 'macvlan', ipam: { type: 'switchyard-cni', ippools: [''] } })).toThrow(/ipam\.ippools/);
  });

  it('routes ADD/CHECK/DEL to the IPAM operations, and answers code 7 when the agent has none', async () => {
    const calls: string[] = [];
    const ipamPods: PodOperations = {
      add: () => Promise.reject(new Error('not the pod path')),
      del: () => Promise.reject(new Error('not the pod path')),
      check: () => Promise.reject(new Error('not the pod path')),
      ipamAdd: async (req, pools) => {
        calls.push(`add:${req.ifname}:${pools.join(',')}`);
        return { cniVersion: '1.0.0', ips: [{ address: '10.9.0.5/24', gateway: '10.9.0.1' }], routes: [], dns: {} };
      },
      ipamDel: async (req) => void calls.push(`del:${req.ifname}`),
      ipamCheck: async (req, _p, prev) => void calls.push(`check:${req.ifname}:${prev.ips?.[0]?.address}`),
    };
    const h = new CniHandler(ipamPods);
    const stdin = JSON.stringify({ cniVersion: '0.4.0', name: 'sec', type: 'macvlan', ipam: { type: 'switchyard-cni', ippools: ['pool-a'] } });
    const base = { containerId: 'c1', netns: '/n', ifname: 'net1', args: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=d', stdin };
    const added = await h.handle('ADD', base);
    expect(JSON.parse(added.result!)).toEqual({ cniVersion: '0.4.0', ips: [{ version: '4', address: '10.9.0.5/24', gateway: '10.9.0.1' }], routes: [], dns: {} });
    const prevStdin = JSON.stringify({ ...JSON.parse(stdin), prevResult: JSON.parse(added.result!) });
    expect(await h.handle('CHECK', { ...base, stdin: prevStdin })).toEqual({});
    expect(await h.handle('DEL', base)).toEqual({});
    expect(calls).toEqual(['add:net1:pool-a', 'check:net1:10.9.0.5/24', 'del:net1']);
    const refused = await new CniHandler(new FakePods()).handle('ADD', base);
    expect(refused.error?.code).toBe(7);
  });
});
