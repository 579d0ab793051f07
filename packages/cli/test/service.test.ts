// `yardctl get service`: the table of Service ports as the agent realises them, and the command
// against a stand-in agent on a real unix socket (its /services and /serviceexternalip answers).
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runYardctl, type CliIo } from '../src/program';
import { servicePortTable, type ServiceExternalIPItem, type ServicePortItem } from '../src/agent-views';
import { renderTable } from '../src/output';

const NODEPORT: ServicePortItem = {
  namespace: 'x', name: 'web', portName: 'http', groupId: 1048576, protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, nodePort: 30080,
  endpoints: [{ ip: '10.10.1.5', port: 8080, local: true }, { ip: '10.10.2.7', port: 8080 }],
};
const LB: ServicePortItem = {
  namespace: 'x', name: 'lb', portName: '', groupId: 1048577, protocol: 'TCP', clusterIP: '10.96.0.11', port: 443, nodePort: 31443,
  externalAddresses: ['10.201.0.100', '192.0.2.10'], externalLocal: true, localGroupId: 1048578, affinityTimeout: 600,
  endpoints: [{ ip: '10.10.1.5', port: 8443, local: true }, { ip: '10.10.2.7', port: 8443 }], healthCheckNodePort: 32000, healthCheckServed: true,
};
/** A second port of the same Service, no endpoints (its select group rejects, its local group drops), no affinity. */
const LB_DNS: ServicePortItem = { ...LB, portName: 'dns', groupId: 1048579, protocol: 'UDP', port: 53, nodePort: 31053, localGroupId: 1048580, endpoints: [] };
delete LB_DNS.affinityTimeout;
const INTERNAL: ServicePortItem = {
  namespace: 'a', name: 'many', portName: '', groupId: 1048581, protocol: 'TCP', clusterIP: '10.96.0.12', port: 81, internalLocal: true, localGroupId: 1048582,
  endpoints: [1, 2, 3, 4, 5].map((i) => ({ ip: `10.10.1.${i}`, port: 81, local: i < 3 })),
};
const OWNERS: ServiceExternalIPItem[] = [{ serviceName: 'lb', namespace: 'x', externalIP: '10.201.0.100', externalIPPool: 'lb-pool', assignedNode: 'node-b' }];

describe('servicePortTable', () => {
  test('a dual-stack Service has a row per family, IPv6 endpoints in brackets (as kubectl prints them)', () => {
    const six: ServicePortItem = { ...NODEPORT, groupId: 1048590, clusterIP: 'fd00:10:96::a', endpoints: [{ ip: 'fd00:10:1::5', port: 8080, local: true }, { ip: 'fd00:10:2::7', port: 8080 }], internalLocal: true, localGroupId: 1048591 };
    delete six.nodePort;
    const rows = servicePortTable([NODEPORT, six], true).rows;
    expect(rows.map((r) => [r[3], r[9], r[13]])).toEqual([
      ['10.96.0.10', '10.10.1.5:8080(local),10.10.2.7:8080', ''],
      ['fd00:10:96::a', '[fd00:10:1::5]:8080(local),[fd00:10:2::7]:8080', '[fd00:10:1::5]:8080'],
    ]);
  });

  test('one row per Service port in namespace/name/port order: group, buckets (local marked), the local group, owners after @, policies, affinity', () => {
    const items = [NODEPORT, { ...LB, serviceExternalIPs: OWNERS }, { ...LB_DNS, serviceExternalIPs: OWNERS }, INTERNAL];
    expect(renderTable(servicePortTable(items, false))).toBe(
      [
        'NAMESPACE   NAME   PORT      CLUSTER-IP   NODE-PORT   EXTERNAL-IP                      EXT-POLICY   INT-POLICY   GROUP     ENDPOINTS                                                          LOCAL-GROUP   AFFINITY',
        'a           many   81/TCP    10.96.0.12   <none>      <none>                           Cluster      Local        1048581   10.10.1.1:81(local),10.10.1.2:81(local),10.10.1.3:81 + 2 more...   1048582       None',
        'x           lb     53/UDP    10.96.0.11   31053       10.201.0.100@node-b,192.0.2.10   Local        Cluster      1048579   <none>                                                             1048580       None',
        'x           lb     443/TCP   10.96.0.11   31443       10.201.0.100@node-b,192.0.2.10   Local        Cluster      1048577   10.10.1.5:8443(local),10.10.2.7:8443                               1048578       ClientIP(600s)',
        'x           web    80/TCP    10.96.0.10   30080       <none>                           Cluster      Cluster      1048576   10.10.1.5:8080(local),10.10.2.7:8080                               <none>        None',
        '',
      ].join('\n'),
    );
  });

  test('wide lists every endpoint and adds the port name, the local group buckets and the health-check node port', () => {
    const t = servicePortTable([INTERNAL, { ...LB, healthCheckServed: false }, NODEPORT], true);
    expect(t.columns.slice(-3)).toEqual(['PORT-NAME', 'LOCAL-ENDPOINTS', 'HEALTH-CHECK-PORT']);
    const byName = new Map(t.rows.map((r) => [r[1], r]));
    expect(byName.get('many')!.slice(9)).toEqual(['10.10.1.1:81(local),10.10.1.2:81(local),10.10.1.3:81,10.10.1.4:81,10.10.1.5:81', '1048582', 'None', '', '10.10.1.1:81,10.10.1.2:81', '']);
    expect(byName.get('lb')!.slice(-3)).toEqual(['', '10.10.1.5:8443', '32000(not served)']);
    expect(byName.get('web')!.slice(-3)).toEqual(['http', '', '']);
  });

  test('an ingress IP its pool cannot place shows @<none>; without /serviceexternalip entries, the bare addresses', () => {
    const unplaced = servicePortTable([{ ...LB, serviceExternalIPs: [{ ...OWNERS[0]!, assignedNode: '' }] }], false);
    expect(unplaced.rows[0]![5]).toBe('10.201.0.100@<none>,192.0.2.10');
    expect(servicePortTable([LB], false).rows[0]![5]).toBe('10.201.0.100,192.0.2.10');
  });
});

// A stand-in agent on a real unix socket, answering like switchyard-agent's local API.
let dir: string;
let socket: string;
let server: Server;
const seen: string[] = [];
/** What /serviceexternalip answers: the owners, or an error status. */
let externalIP: { status: number; body: unknown } = { status: 200, body: OWNERS };
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'yardctl-svc-'));
  socket = join(dir, 'agent.sock');
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://agent');
    const ns = url.searchParams.get('namespace');
    const name = url.searchParams.get('name');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/services') return send(200, [NODEPORT, LB, INTERNAL].filter((s) => (!ns || s.namespace === ns) && (!name || s.name === name)));
    if (url.pathname === '/serviceexternalip') return send(externalIP.status, externalIP.body);
    send(404, { error: 'no route' });
  });
  await new Promise<void>((r) => server.listen(socket, () => r()));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  externalIP = { status: 200, body: OWNERS };
});

const run = async (argv: string[]) => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env: {} };
  const code = await runYardctl([...argv, '--agent-socket', socket], io);
  return { code, out, err };
};

describe('yardctl get service', () => {
  test('asks /services and /serviceexternalip with the same query; -o json is the agent objects with their Service external IPs joined', async () => {
    const r = await run(['get', 'service', 'x/lb', '-o', 'json']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(seen.slice(-2).sort()).toEqual(['/serviceexternalip?namespace=x&name=lb', '/services?namespace=x&name=lb']);
    expect(JSON.parse(r.out)).toEqual([{ ...LB, serviceExternalIPs: OWNERS }]);
  });

  test('the table is servicePortTable of the joined objects; a bare name with -n is that namespace', async () => {
    const r = await run(['get', 'svc', 'lb', '-n', 'x']);
    expect(r.code).toBe(0);
    expect(seen.at(-1)).toMatch(/namespace=x&name=lb$/);
    expect(r.out).toBe(renderTable(servicePortTable([{ ...LB, serviceExternalIPs: OWNERS }], false)));
    expect(r.out).toContain('10.201.0.100@node-b');
  });

  test('ServiceExternalIP off on the agent (404) prints the ports without owners, quietly; another failure is a warning, exit 0', async () => {
    externalIP = { status: 404, body: { error: 'ServiceExternalIP is not enabled on this agent' } };
    const off = await run(['get', 'svc', '-o', 'yaml']);
    expect(off).toMatchObject({ code: 0, err: '' });
    expect(off.out).not.toContain('serviceExternalIPs');
    externalIP = { status: 500, body: { error: 'boom' } };
    const broken = await run(['get', 'svc']);
    expect(broken.code).toBe(0);
    expect(broken.err).toBe('warning: owners of LoadBalancer IPs not shown: Error from agent (500): boom\n');
    expect(broken.out.split('\n')).toHaveLength(5); // header, 3 rows, final newline
  });

  test('a Service the agent does not realise is NotFound, exit 1; an empty namespace is "No resources found", exit 0', async () => {
    expect(await run(['get', 'svc', 'x/nope'])).toMatchObject({ code: 1, out: '', err: 'Error from server (NotFound): services "x/nope" not found\n' });
    expect(await run(['get', 'svc', 'nope'])).toMatchObject({ code: 1, err: 'Error from server (NotFound): services "nope" not found\n' });
    expect(await run(['get', 'svc', '-n', 'empty'])).toMatchObject({ code: 0, out: '', err: 'No resources found in empty namespace.\n' });
    expect(await run(['get', 'svc', '-n', 'empty', '-o', 'json'])).toMatchObject({ code: 0, out: '[]\n' });
  });

  test('usage errors exit 2 before any request: a bad name, a namespace that disagrees with -n, -n with -A, --node with --agent-socket', async () => {
    const before = seen.length;
    expect(await run(['get', 'svc', 'a/b/c'])).toMatchObject({ code: 2, err: 'error: invalid Service "a/b/c": expected namespace/name or name\n' });
    expect(await run(['get', 'svc', 'Web'])).toMatchObject({ code: 2 });
    expect(await run(['get', 'svc', 'x/web', '-n', 'y'])).toMatchObject({ code: 2, err: 'error: Service "x/web" is not in namespace "y" (-n)\n' });
    expect(await run(['get', 'svc', '-n', 'x', '-A'])).toMatchObject({ code: 2 });
    expect(await run(['get', 'svc', '--node', 'n1'])).toMatchObject({ code: 2, err: 'error: use only one of --node and --agent-socket\n' });
    expect(await run(['get', 'svc', '-o', 'xml'])).toMatchObject({ code: 2 });
    expect(seen.length).toBe(before);
  });
});
