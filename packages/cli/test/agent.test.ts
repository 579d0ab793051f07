import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runYardctl, type CliIo } from '../src/program';
import { connectAgent } from '../src/agent-client';
import { agentInfoTable, podInterfaceTable } from '../src/agent-views';
import { renderTable } from '../src/output';

const INFO = {
  nodeRef: { kind: 'Node', name: 'node-a' },
  nodeSubnets: ['10.10.0.0/24'],
  ovsInfo: { bridgeName: 'br-int', version: '3.1.0', flowTable: { Classifier: 4, SpoofGuard: 6 } },
  localPodNum: 2,
  roundNum: 3,
  agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00.000Z' }],
  networkPolicyControllerInfo: { networkPolicyNum: 1, addressGroupNum: 2, appliedToGroupNum: 3 },
};
const PODS = [
  { containerId: 'cafe0123456789abcdef', podName: 'web', podNamespace: 'x', ifname: 'eth0', netns: '/n', hostIfName: 'web-5a1b2c', ipCidr: '10.10.0.3/24', gateway: '10.10.0.1', mac: '02:00:00:00:00:03', mtu: 1450, ofport: 4 },
  { containerId: 'beef0123456789abcdef', podName: 'client', podNamespace: 'x', ifname: 'eth0', netns: '/n', hostIfName: 'client-9f8e7d', ipCidr: '10.10.0.2/24', gateway: '10.10.0.1', mac: '02:00:00:00:00:02', mtu: 1450, ofport: 3 },
];
const FLOWS = ['table=Classifier, n_packets=0, n_bytes=0, priority=190,in_port=3 actions=goto_table:SpoofGuard', 'table=SpoofGuard, n_packets=0, n_bytes=0, priority=200,ip,in_port=3,dl_src=02:00:00:00:00:02,nw_src=10.10.0.2 actions=goto_table:ConntrackZone'];

// A stand-in agent on a real unix socket, answering like switchyard-agent's local API.
let dir: string;
let socket: string;
let server: Server;
const seen: string[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'yardctl-agent-'));
  socket = join(dir, 'agent.sock');
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://agent');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/agentinfo') return send(200, INFO);
    if (url.pathname === '/podinterfaces') return send(200, PODS.filter((p) => (!url.searchParams.get('namespace') || p.podNamespace === url.searchParams.get('namespace')) && (!url.searchParams.get('name') || p.podName === url.searchParams.get('name'))));
    if (url.pathname === '/ovsflows') {
      if (url.searchParams.get('table') === 'NoSuchTable') return send(404, { error: 'no table NoSuchTable' });
      if (url.searchParams.get('table') === 'Broken') return send(500, { error: 'switch went away' });
      return send(200, FLOWS);
    }
    if (url.pathname === '/garbage') {
      res.writeHead(200);
      return res.end('<html>');
    }
    send(404, { error: 'no route' });
  });
  await new Promise<void>((r) => server.listen(socket, () => r()));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const run = async (argv: string[], env: Record<string, string> = {}) => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env };
  const code = await runYardctl(argv, io);
  return { code, out, err };
};

describe('agent local API client', () => {
  test('decodes JSON answers and sends only the defined query parameters', async () => {
    const a = connectAgent({ socketPath: socket, timeoutMs: 5000 });
    expect(await a.get('/agentinfo')).toEqual(INFO);
    await a.get('/podinterfaces', { namespace: 'x', name: undefined });
    expect(seen.at(-1)).toBe('/podinterfaces?namespace=x');
  });

  test('maps 404, 5xx, non-JSON and a missing socket to typed errors naming the offending value', async () => {
    const a = connectAgent({ socketPath: socket, timeoutMs: 5000 });
    await expect(a.get('/ovsflows', { table: 'NoSuchTable' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('no table NoSuchTable') });
    await expect(a.get('/ovsflows', { table: 'Broken' })).rejects.toMatchObject({ code: 'SERVER', value: 500 });
    await expect(a.get('/garbage')).rejects.toMatchObject({ code: 'SERVER', field: '/garbage' });
    const missing = join(dir, 'nope.sock');
    await expect(connectAgent({ socketPath: missing, timeoutMs: 5000 }).get('/agentinfo')).rejects.toMatchObject({ code: 'UNREACHABLE', value: missing, field: '--agent-socket' });
  });
});

describe('agent views', () => {
  test('agentinfo has antctl columns; wide adds bridge, OVS version, total flows and controller state', () => {
    const t = agentInfoTable(INFO, false);
    expect(t.columns).toEqual(['POD', 'NODE', 'STATUS', 'NODE-SUBNET', 'NETWORK-POLICIES', 'ADDRESS-GROUPS', 'APPLIED-TO-GROUPS', 'LOCAL-PODS']);
    expect(t.rows).toEqual([['', 'node-a', 'Healthy', '10.10.0.0/24', '1', '2', '3', '2']]);
    const w = agentInfoTable({ ...INFO, agentConditions: [{ type: 'AgentHealthy', status: 'False' }, { type: 'ControllerConnectionUp', status: 'False' }] }, true);
    expect(w.rows[0]?.slice(2, 3)).toEqual(['Unhealthy']);
    expect(w.rows[0]?.slice(8)).toEqual(['br-int', '3.1.0', '10', 'Disconnected']);
  });

  test('podinterface rows are sorted by namespace/name with the IP unprefixed and the container id shortened', () => {
    const t = podInterfaceTable(PODS);
    expect(t.columns).toEqual(['NAMESPACE', 'NAME', 'INTERFACE-NAME', 'IP', 'MAC', 'PORT-UUID', 'OF-PORT', 'CONTAINER-ID']);
    expect(t.rows).toEqual([
      ['x', 'client', 'client-9f8e7d', '10.10.0.2', '02:00:00:00:00:02', '', '3', 'beef0123456'],
      ['x', 'web', 'web-5a1b2c', '10.10.0.3', '02:00:00:00:00:03', '', '4', 'cafe0123456'],
    ]);
  });
});

describe('yardctl agent commands', () => {
  test('get agentinfo prints one row from the socket given by --agent-socket', async () => {
    const r = await run(['get', 'agentinfo', '--agent-socket', socket]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(renderTable(agentInfoTable(INFO, false)));
  });

  test('the socket can come from $YARDCTL_AGENT_SOCKET; -o json prints the agent document unchanged', async () => {
    const r = await run(['get', 'ai', '-o', 'json'], { YARDCTL_AGENT_SOCKET: socket });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(INFO);
  });

  test('get podinterface NAME -n NS asks the agent for that pod; an absent pod is NotFound, exit 1', async () => {
    const one = await run(['get', 'pi', 'web', '-n', 'x', '-o', 'json', '--agent-socket', socket]);
    expect(one.code).toBe(0);
    expect(seen.at(-1)).toBe('/podinterfaces?namespace=x&name=web');
    expect((JSON.parse(one.out) as { podName: string }[]).map((p) => p.podName)).toEqual(['web']);
    const none = await run(['get', 'pi', 'nobody', '-n', 'x', '--agent-socket', socket]);
    expect(none.code).toBe(1);
    expect(none.err).toBe('Error from server (NotFound): podinterfaces "x/nobody" not found\n');
    expect(none.out).toBe('');
  });

  test('get ovsflows -p/-n/-T become the pod and table query; output is a FLOW column or [{flow}]', async () => {
    const r = await run(['get', 'of', '-p', 'client', '-n', 'x', '-T', 'SpoofGuard', '--agent-socket', socket]);
    expect(r.code).toBe(0);
    expect(seen.at(-1)).toBe('/ovsflows?pod=x%2Fclient&table=SpoofGuard');
    expect(r.out.split('\n')[0]).toBe('FLOW');
    expect(r.out.split('\n').slice(1, -1)).toEqual(FLOWS);
    const j = await run(['get', 'ovsflows', '-p', 'client', '-o', 'json', '--agent-socket', socket]);
    expect(seen.at(-1)).toBe('/ovsflows?pod=default%2Fclient');
    expect(JSON.parse(j.out)).toEqual(FLOWS.map((flow) => ({ flow })));
  });

  test('an unknown table is the agent 404 on stderr with exit 1', async () => {
    const r = await run(['get', 'of', '-T', 'NoSuchTable', '--agent-socket', socket]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('Error from agent (NotFound): no table NoSuchTable\n');
  });

  test('--networkpolicy goes to the agent as namespace/name (namespace from -n); with -p it is a usage error', async () => {
    const r = await run(['get', 'of', '--networkpolicy', 'np1', '-n', 'x', '--agent-socket', socket]);
    expect(r.code).toBe(0);
    expect(seen.at(-1)).toBe('/ovsflows?networkpolicy=x%2Fnp1');
    const both = await run(['get', 'of', '--networkpolicy', 'np1', '-p', 'web', '--agent-socket', socket]);
    expect(both).toMatchObject({ code: 2, err: 'error: use only one of -p/--pod and --networkpolicy\n' });
    expect((await run(['get', 'of', '--networkpolicy', 'a/b/c', '--agent-socket', socket])).code).toBe(2);
  });

  test('a missing agent socket exits 1 naming the socket', async () => {
    const missing = join(dir, 'absent.sock');
    const r = await run(['get', 'pi', '--agent-socket', missing]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`unable to connect to the agent at ${missing}`);
  });
});
