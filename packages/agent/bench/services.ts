// Benchmark (issue 33): 1,000 Services x 10 endpoints realized on a node through the agent's own
// path (Service and EndpointSlice events into the services part's ServiceController, its mapping,
// FlowSync's one bundle into a real ovs-vswitchd, then the host's node port rules and routes),
// against `ovs-ofctl --bundle add-groups` + `add-flows` of the same groups and flows (printed by the
// pipeline's formatter) in the same run; then one Service's endpoints changing (10 -> 11) with the
// 1,000 in place. Prints a table, writes bench/services.results.json. Not run in CI; as root.
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '@switchyard/kube';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi } from '@switchyard/kube-api';
import { CookieCategory, formatFlow, formatGroup, parseCookie } from '@switchyard/openflow-pipeline';
import { Testbed, run, type OvsInstance } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { ServiceGroupIds, servicesToSpecs } from '../src/features/services/services';

const HERE = new URL('.', import.meta.url).pathname;
const SERVICES = Number(process.env.BENCH_SERVICES ?? 1000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
/** Every EXTERNAL_EVERY-th Service is a LoadBalancer with an ingress IP (the rest: NodePort). */
const EXTERNAL_EVERY = 10;
/** Single-Service changes measured with the 1,000 in place. */
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
const NODE = 'bench';

const r2 = (x: number): number => Math.round(x * 100) / 100;
const ip4 = (base: [number, number], j: number): string => `${base[0]}.${base[1]}.${(j >> 8) & 0xff}.${j & 0xff}`;
const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

/** Service i: ClusterIP 10.96.x.y, node port 30000+i, every 10th a LoadBalancer with an ingress IP. */
function serviceObject(i: number): KubeObject {
  const lb = i % EXTERNAL_EVERY === 0;
  return {
    apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, namespace: 'bench', uid: `svc-${i}` },
    spec: { type: lb ? 'LoadBalancer' : 'NodePort', clusterIP: ip4([10, 96], i + 1), ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30000 + i }] },
    ...(lb ? { status: { loadBalancer: { ingress: [{ ip: ip4([192, 168], 0xc800 + i / EXTERNAL_EVERY + 1) }] } } } : {}),
  } as KubeObject;
}

/** Service i's EndpointSlice with n endpoints (unique addresses across Services; one in ten on this node). */
function sliceObject(i: number, n: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
    metadata: { name: `svc-${i}-abcde`, namespace: 'bench', labels: { 'kubernetes.io/service-name': `svc-${i}` } },
    endpoints: Array.from({ length: n }, (_, k) => ({ addresses: [ip4([10, 110], i * 16 + k + 1)], conditions: { ready: true }, nodeName: k === 0 ? NODE : 'other' })),
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
  } as unknown as KubeObject;
}

/** User + system CPU ms of a process so far (/proc/<pid>/stat, clock ticks of 10 ms). */
function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10;
}
const selfCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall, the bench process's CPU (the agent runs in it) and ovs-vswitchd's CPU around `fn`. */
async function timed<T>(vswitchd: number, fn: () => Promise<T>): Promise<{ value: T; wallMs: number; agentCpuMs: number; vswitchdCpuMs: number }> {
  const c0 = selfCpuMs();
  const v0 = procCpuMs(vswitchd);
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  return { value, wallMs: r2(wallMs), agentCpuMs: r2(selfCpuMs() - c0), vswitchdCpuMs: procCpuMs(vswitchd) - v0 };
}

/** What the switch holds for the Services: flows with a Service port's cookie, and groups. */
async function switchCounts(ovs: OvsInstance): Promise<{ flows: number; groups: number }> {
  const sock = ovs.mgmtSocket('br-int');
  const flows = (await ovs.ofctl('-O', 'OpenFlow15', '--no-stats', 'dump-flows', sock)).split('\n').filter((l) => {
    const m = /cookie=0x([0-9a-f]+)/.exec(l);
    if (!m) return false;
    const c = parseCookie(BigInt(`0x${m[1]}`));
    return c.category === CookieCategory.Service && c.objectId !== 0;
  }).length;
  const groups = (await ovs.ofctl('-O', 'OpenFlow15', 'dump-groups', sock)).split('\n').filter((l) => l.includes('group_id=')).length;
  return { flows, groups };
}

/** Runs argv under bash and returns its wall ms and the child's user+system CPU ms (bash's `times`). */
async function timedChild(argv: string[]): Promise<{ wallMs: number; cpuMs: number }> {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const r = await run(['bash', '-c', `${quoted} >/dev/null && times`], { timeoutMs: 300_000 });
  const wallMs = performance.now() - t0;
  // `times`: the shell's user/sys, then its children's, as 0m0.123s.
  const child = r.stdout.trim().split('\n').pop()!.split(/\s+/).map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t)!;
    return Number(m[1]) * 60_000 + Number(m[2]) * 1000;
  });
  return { wallMs: r2(wallMs), cpuMs: r2(child[0]! + child[1]!) };
}

async function main(): Promise<void> {
  const tb = await Testbed.create();
  const dir = mkdtempSync(join(tmpdir(), 'sy-svc-bench-'));
  const api = await startKubeApi({});
  let agent: Agent | undefined;
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    const ovs = await tb.startOvs();
    const vswitchd = Number(readFileSync(join(ovs.dir, 'vswitchd.pid'), 'utf8').trim());
    const noop = (): void => undefined;
    const logger = { debug: noop, info: process.env.BENCH_DEBUG ? (o: unknown, m?: string) => console.error(m, o) : noop, warn: (o: unknown, m?: string) => console.error(m, o), error: (o: unknown, m?: string) => console.error(m, o) };
    // With a Kubernetes API the services part runs (AntreaProxy); the API server holds no
    // Services but its own (skipped, as antreaProxy.skipServices allows), so what the part realizes is what this bench hands its controller, as its
    // informers would.
    agent = await Agent.start({
      logger, nodeName: NODE, podCIDR: '10.100.0.0/16', nodeIP: '192.168.1.1', ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir,
      datapathType: 'netdev', gatewayName: 'sy-gw0', tunnelName: 'sy-tun0', dataDir: dir, cniSocket: join(dir, 'cni.sock'), nodeNetns: ovs.netns.name,
      kube: new KubeConfigClient(kc), skipServices: ['default/kubernetes'],
    });
    const ctl = agent.part('services').services;
    const flows = agent.part('node').flows;
    const services = Array.from({ length: SERVICES }, (_, i) => serviceObject(i));
    const slices = Array.from({ length: SERVICES }, (_, i) => sliceObject(i, ENDPOINTS));
    const addAll = async (): Promise<void> => {
      for (const s of services) ctl.onServiceEvent({ type: 'ADDED', object: s });
      for (const s of slices) ctl.onSliceEvent({ type: 'ADDED', object: s });
      await ctl.idle();
      if (ctl.lastError !== undefined) throw ctl.lastError;
    };
    const deleteAll = async (): Promise<void> => {
      for (const s of slices) ctl.onSliceEvent({ type: 'DELETED', object: s });
      for (const s of services) ctl.onServiceEvent({ type: 'DELETED', object: s });
      await ctl.idle();
      if (ctl.lastError !== undefined) throw ctl.lastError;
    };
    const before = await switchCounts(ovs);
    if (before.flows !== 0 || before.groups !== 0) throw new Error(`the switch holds Service flows or groups before the bench: ${JSON.stringify(before)}`);

    console.error(`agent: ${SERVICES} Services x ${ENDPOINTS} endpoints at once`);
    const realize = async (label: string): Promise<Record<string, unknown>> => {
      const t = await timed(vswitchd, addAll);
      const ft = flows.lastTimings!;
      const held = await switchCounts(ovs);
      const out = {
        label, wallMs: t.wallMs, agentCpuMs: t.agentCpuMs, vswitchdCpuMs: t.vswitchdCpuMs, flows: held.flows, groups: held.groups,
        servicesPerSecond: Math.round((SERVICES * 1000) / t.wallMs), flowsPerSecond: Math.round((held.flows * 1000) / t.wallMs),
        flowSync: { computeMs: ft.computeMs, bundleMs: ft.bundleMs, flowsPerSecondOfBundle: Math.round((held.flows * 1000) / ft.bundleMs) },
        mappingAndHostMs: r2(t.wallMs - ft.computeMs - ft.installMs),
      };
      console.error(`  ${label}: ${JSON.stringify(out)}`);
      return out;
    };
    const first = await realize('agent, 1st (cold)');
    if (first.groups !== SERVICES) throw new Error(`expected ${SERVICES} groups on the switch, found ${String(first.groups)}`);

    // The same flows and groups, as ovs-ofctl reads them (numbered tables, cookies), from the pipeline's own state.
    const nf = flows.nodeFlows!;
    const svcFlows = nf.flows.filter((f) => {
      const c = parseCookie(f.cookie ?? 0n);
      return c.category === CookieCategory.Service && c.objectId !== 0;
    });
    const flowFile = join(dir, 'service-flows.txt');
    const groupFile = join(dir, 'service-groups.txt');
    writeFileSync(flowFile, `${svcFlows.map((f) => formatFlow(f)).join('\n')}\n`);
    writeFileSync(groupFile, `${nf.groups.map((g) => formatGroup(g)).join('\n')}\n`);

    console.error(`incremental: one Service's endpoints ${ENDPOINTS} -> ${ENDPOINTS + 1}, ${CHANGES} times (a different Service each), ${SERVICES} in place`);
    const change: { wallMs: number; computeMs: number; bundleMs: number }[] = [];
    for (let c = 0; c < CHANGES; c++) {
      const i = Math.floor((c * SERVICES) / CHANGES) + 1;
      const t = await timed(vswitchd, async () => {
        ctl.onSliceEvent({ type: 'MODIFIED', object: sliceObject(i, ENDPOINTS + 1) });
        await ctl.idle();
      });
      const ft = flows.lastTimings!;
      change.push({ wallMs: t.wallMs, computeMs: ft.computeMs, bundleMs: ft.bundleMs });
    }
    const held = await switchCounts(ovs);
    if (held.flows !== first.flows as number + CHANGES) throw new Error(`after ${CHANGES} endpoint additions the switch holds ${held.flows} Service flows, expected ${(first.flows as number) + CHANGES}`);
    const incremental = {
      changes: CHANGES,
      wallP50Ms: r2(pct(change.map((x) => x.wallMs), 50)), wallMaxMs: r2(Math.max(...change.map((x) => x.wallMs))),
      computeP50Ms: r2(pct(change.map((x) => x.computeMs), 50)), bundleP50Ms: r2(pct(change.map((x) => x.bundleMs), 50)),
    };
    console.error(`  ${JSON.stringify(incremental)}`);
    for (let c = 0; c < CHANGES; c++) ctl.onSliceEvent({ type: 'MODIFIED', object: sliceObject(Math.floor((c * SERVICES) / CHANGES) + 1, ENDPOINTS) });
    await ctl.idle();

    // The controller's mapping alone (pure), on the same objects: what of the single change is neither flows nor bundle.
    const mapping: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      servicesToSpecs({ services, slices, nodeName: NODE, groupIds: new ServiceGroupIds(), skipServices: new Set(['default/kubernetes']) });
      mapping.push(performance.now() - t0);
    }
    const mappingP50Ms = r2(pct(mapping, 50));
    console.error(`  servicesToSpecs alone over the ${SERVICES} Services: p50 ${mappingP50Ms} ms`);

    console.error('agent: every Service deleted at once');
    const removal = await timed(vswitchd, deleteAll);
    const empty = await switchCounts(ovs);
    if (empty.flows !== 0 || empty.groups !== 0) throw new Error(`Service flows or groups left after the removal: ${JSON.stringify(empty)}`);

    console.error(`reference: ovs-ofctl --bundle add-groups + add-flows of the same ${nf.groups.length} groups and ${svcFlows.length} flows`);
    const sock = ovs.mgmtSocket('br-int');
    const v0 = procCpuMs(vswitchd);
    const g = await timedChild(['ovs-ofctl', '-O', 'OpenFlow15', '--bundle', 'add-groups', sock, groupFile]);
    const f = await timedChild(['ovs-ofctl', '-O', 'OpenFlow15', '--bundle', 'add-flows', sock, flowFile]);
    const refVswitchdCpuMs = procCpuMs(vswitchd) - v0;
    const refHeld = await switchCounts(ovs);
    if (refHeld.flows !== svcFlows.length || refHeld.groups !== nf.groups.length) throw new Error(`ovs-ofctl left ${JSON.stringify(refHeld)}`);
    const refWall = g.wallMs + f.wallMs;
    const reference = {
      groupsMs: g.wallMs, flowsMs: f.wallMs, wallMs: r2(refWall), ofctlCpuMs: r2(g.cpuMs + f.cpuMs), vswitchdCpuMs: refVswitchdCpuMs,
      servicesPerSecond: Math.round((SERVICES * 1000) / refWall), flowsPerSecond: Math.round((svcFlows.length * 1000) / refWall),
    };
    console.error(`  ${JSON.stringify(reference)}`);
    // Back to an empty switch (the agent's pipeline holds no Service now): every Service port's
    // flow carries its group id (>= 0x100000) as the cookie's object id.
    await ovs.ofctl('-O', 'OpenFlow15', 'del-flows', sock, `cookie=0x${((BigInt(CookieCategory.Service) << 40n) | 0x100000n).toString(16)}/0x${((0xffn << 40n) | 0x100000n).toString(16)}`);
    for (const gr of nf.groups) await ovs.ofctl('-O', 'OpenFlow15', 'del-groups', sock, `group_id=${gr.groupId}`);
    const cleaned = await switchCounts(ovs);
    if (cleaned.flows !== 0 || cleaned.groups !== 0) throw new Error(`ovs-ofctl's flows not all deleted: ${JSON.stringify(cleaned)}`);

    const second = await realize('agent, 2nd');
    await agent.stop();
    agent = undefined;

    const ratio = (a: number, b: number): number => r2(a / b);
    const table: [string, string, string, string, string, string][] = [
      ['case', 'wall ms', 'Services/s', 'flows/s', 'CPU ms (client + ovs-vswitchd)', 'vs ovs-ofctl (wall)'],
      ...[first, second].map((r): [string, string, string, string, string, string] => [
        `${String(r.label)}: ${SERVICES} Services x ${ENDPOINTS} endpoints (${String(r.flows)} flows, ${String(r.groups)} groups)`,
        String(r.wallMs), String(r.servicesPerSecond), String(r.flowsPerSecond), `${String(r.agentCpuMs)} + ${String(r.vswitchdCpuMs)}`,
        `${ratio(reference.wallMs, r.wallMs as number)}x`,
      ]),
      [`ovs-ofctl --bundle add-groups + add-flows (reference)`, `${reference.wallMs} (${reference.groupsMs} + ${reference.flowsMs})`, String(reference.servicesPerSecond), String(reference.flowsPerSecond), `${reference.ofctlCpuMs} + ${reference.vswitchdCpuMs}`, '1x'],
      [`one Service's endpoints ${ENDPOINTS} -> ${ENDPOINTS + 1}, ${SERVICES} in place (p50 / max of ${CHANGES}; flows ${incremental.computeP50Ms} + bundle ${incremental.bundleP50Ms}, mapping all ${SERVICES} ${mappingP50Ms})`, `${incremental.wallP50Ms} / ${incremental.wallMaxMs}`, '', '', '', ''],
      ['every Service deleted', String(removal.wallMs), '', '', `${removal.agentCpuMs} + ${removal.vswitchdCpuMs}`, ''],
    ];
    for (const r of table) console.log(`| ${r.join(' | ')} |`);
    const load = loadavg().map(r2);
    console.log(`load average at the end: ${load.join(' ')}`);
    writeFileSync(join(HERE, 'services.results.json'), `${JSON.stringify({
      date: new Date().toISOString(), node: process.version, loadavg: load, services: SERVICES, endpointsPerService: ENDPOINTS, externalEvery: EXTERNAL_EVERY,
      agent: [first, second], reference, ratioReferenceWallOverAgent: [first, second].map((r) => ratio(reference.wallMs, r.wallMs as number)),
      incremental: { ...incremental, servicesToSpecsP50Ms: mappingP50Ms }, removal: { wallMs: removal.wallMs, agentCpuMs: removal.agentCpuMs, vswitchdCpuMs: removal.vswitchdCpuMs },
    }, null, 2)}\n`);
  } catch (e) {
    // Printed before the cleanup, which can take a while with an agent still attached.
    console.error(e);
    throw e;
  } finally {
    await agent?.stop();
    await api.stop();
    await tb.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
