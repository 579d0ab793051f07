import type { Traceflow } from '@switchyard/apis';
import type { KubeWriter } from '../src/client';
import { CliError } from '../src/errors';
import { runYardctl } from '../src/program';
import { awaitTraceflow, POLL_INTERVAL_MS, TRACEFLOWS_PATH } from '../src/traceflow-command';
import { buildTraceflow, defaultPacket, parseEndpointRef, parseFlow, traceflowName } from '../src/traceflow-spec';
import { explainLine, traceflowTree } from '../src/traceflow-views';
import { captureIo, EXPLANATION, fakeApi } from './fixtures';

const usageError = (fn: () => unknown): CliError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).code).toBe('USAGE');
    return e as CliError;
  }
  throw new Error('no error thrown');
};

describe('flow text', () => {
  test('tcp with a destination port gets SYN unless live', () => {
    expect(parseFlow('tcp,tcp_dst=80', false)).toEqual({ ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } });
    expect(parseFlow('tcp,tcp_dst=80', true)).toEqual({ ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80 } } });
    expect(parseFlow('tcp,tcp_src=1234,tcp_dst=443,tcp_flags=18,nw_ttl=9', false)).toEqual({ ipHeader: { protocol: 6, ttl: 9 }, transportHeader: { tcp: { srcPort: 1234, dstPort: 443, flags: 18 } } });
  });

  test('udp, icmp and a numeric protocol map to their headers', () => {
    expect(parseFlow('udp,udp_src=5000,udp_dst=53', false)).toEqual({ ipHeader: { protocol: 17 }, transportHeader: { udp: { srcPort: 5000, dstPort: 53 } } });
    expect(parseFlow('icmp', false)).toEqual({ ipHeader: { protocol: 1 }, transportHeader: { icmp: { id: 0, sequence: 0 } } });
    expect(parseFlow('nw_proto=132', false)).toEqual({ ipHeader: { protocol: 132 } });
    expect(parseFlow(' TCP , tcp_dst = 80 ', false).transportHeader?.tcp?.dstPort).toBe(80);
  });

  test('IPv6: `ipv6` (or tcp6/udp6/icmp6, or an IPv6 address in the trace) describes the packet in ipv6Header; ICMP is ICMPv6', () => {
    expect(parseFlow('tcp,tcp_dst=80,ipv6', false)).toEqual({ ipv6Header: { nextHeader: 6 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } });
    expect(parseFlow('udp6,udp_dst=53,nw_ttl=3', false)).toEqual({ ipv6Header: { nextHeader: 17, hopLimit: 3 }, transportHeader: { udp: { dstPort: 53 } } });
    expect(parseFlow('icmp', false, true)).toEqual({ ipv6Header: { nextHeader: 58 }, transportHeader: { icmp: { id: 0, sequence: 0 } } });
    expect(parseFlow('icmp6,nw_proto=58', false)).toEqual({ ipv6Header: { nextHeader: 58 }, transportHeader: { icmp: { id: 0, sequence: 0 } } });
    // Without a protocol it still asks for IPv6 (between dual-stack Pods).
    expect(parseFlow('ipv6', true)).toEqual({ ipv6Header: {} });
    expect(defaultPacket(false, true)).toEqual({ ipv6Header: { nextHeader: 58 }, transportHeader: { icmp: { id: 0, sequence: 0 } } });
    expect(defaultPacket(true, true)).toEqual({ ipv6Header: {} });
    expect(usageError(() => parseFlow('icmp6,nw_proto=1', false)).message).toContain('"nw_proto=1"');
  });

  test('bad flow text is a usage error naming the token', () => {
    expect(usageError(() => parseFlow('tcpp,tcp_dst=80', false)).message).toContain('"tcpp"');
    expect(usageError(() => parseFlow('tcp,tcp_dst=http', false)).message).toContain('"tcp_dst=http"');
    expect(usageError(() => parseFlow('tcp,tcp_dst=70000', false)).message).toContain('"tcp_dst=70000"');
    expect(usageError(() => parseFlow('udp,tcp_dst=80', false)).message).toContain('"tcp_dst=80"');
    expect(usageError(() => parseFlow('tcp,dl_vlan=3', false)).message).toContain('unknown field "dl_vlan"');
    expect(usageError(() => parseFlow('tcp,nw_proto=17', false)).message).toContain('"nw_proto=17"');
    expect(usageError(() => parseFlow('tcp,udp', false)).message).toContain('"udp"');
  });
});

describe('endpoints and names', () => {
  test('-S/-D take ns/name, a bare name in the namespace, or an IP where allowed', () => {
    expect(parseEndpointRef('x/web', '--destination', 'default', true)).toEqual({ namespace: 'x', name: 'web' });
    expect(parseEndpointRef('web', '--destination', 'y', true)).toEqual({ namespace: 'y', name: 'web' });
    expect(parseEndpointRef('10.0.0.9', '--destination', 'default', true)).toEqual({ ip: '10.0.0.9' });
    expect(parseEndpointRef('fd00::9', '--source', 'default', true)).toEqual({ ip: 'fd00::9' });
    expect(usageError(() => parseEndpointRef('10.0.0.9', '--source', 'default', false)).message).toContain('needs --live');
    expect(usageError(() => parseEndpointRef('a/b/c', '--source', 'default', false)).message).toContain('"a/b/c"');
    expect(usageError(() => parseEndpointRef('X_Y/web', '--destination', 'default', true)).message).toContain('"X_Y/web"');
  });

  test('names are <src>-to-<dst>-<5 chars>, DNS-1123 clean and at most 63 characters', () => {
    const fixed = () => 0;
    expect(traceflowName('client', 'web', fixed)).toBe('client-to-web-aaaaa');
    expect(traceflowName('10.0.0.1', 'fd00::1', fixed)).toBe('10-0-0-1-to-fd00-1-aaaaa');
    expect(traceflowName('', 'web', fixed)).toBe('any-to-web-aaaaa');
    const long = traceflowName('a'.repeat(60), 'b'.repeat(60));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(traceflowName('web.v2', 'db', Math.floor.bind(null, 0) as () => number)).toMatch(/^web-v2-to-db-[a-z0-9]{5}$/);
  });

  test('the Traceflow carries source, destination, packet and timeout as Antrea names them', () => {
    const tf = buildTraceflow('a-to-b-xxxxx', { source: { namespace: 'x', name: 'a' }, destination: { namespace: 'x', service: 'b' }, packet: parseFlow('tcp,tcp_dst=80', false), live: false, droppedOnly: false, timeoutS: 20 });
    expect(tf).toEqual({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { name: 'a-to-b-xxxxx' },
      spec: { source: { namespace: 'x', pod: 'a' }, destination: { namespace: 'x', service: 'b' }, packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } }, timeout: 20 },
    });
    const live = buildTraceflow('n', { source: { ip: '10.0.0.1' }, live: true, droppedOnly: true, timeoutS: 60 });
    expect(live.spec).toEqual({ source: { ip: '10.0.0.1' }, destination: {}, liveTraffic: true, droppedOnly: true, timeout: 60 });
  });
});

const SPEC: Traceflow['spec'] = { source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', pod: 'b' }, packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } }, timeout: 20 };

describe('tree', () => {
  test('prints the Sender first, then the Receiver, one aligned line per observation', () => {
    const tf: Traceflow = {
      metadata: { name: 'a-to-b-x7k2q' },
      spec: SPEC,
      status: {
        phase: 'Succeeded',
        dataplaneTag: 7,
        results: [
          { node: 'node2', role: 'Receiver', observations: [{ component: 'Forwarding', action: 'Received' }, { component: 'NetworkPolicy', componentInfo: 'IngressRule', action: 'Forwarded', networkPolicy: 'K8sNetworkPolicy:default/web' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'default/b' }] },
          { node: 'node1', role: 'Sender', observations: [{ component: 'SpoofGuard', action: 'Forwarded' }, { component: 'NetworkPolicy', componentInfo: 'EgressRule', action: 'Forwarded', networkPolicy: 'AntreaClusterNetworkPolicy:allow-web', networkPolicyRule: 'rule 0' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.12' }] },
        ],
      },
    };
    expect(traceflowTree(tf, { sourceIP: '10.10.1.5', destinationIP: '10.10.2.7' })).toBe(
      [
        'traceflow a-to-b-x7k2q: Succeeded (tag 7)',
        'source    default/a  10.10.1.5',
        'dest      default/b  10.10.2.7  tcp dport 80 flags 2',
        'node1 (Sender)',
        '  SpoofGuard      Forwarded',
        '  NetworkPolicy   Forwarded   EgressRule  AntreaClusterNetworkPolicy:allow-web rule 0',
        '  Forwarding      Forwarded   Output  tunnel to 192.168.77.12',
        'node2 (Receiver)',
        '  Forwarding      Received',
        '  NetworkPolicy   Forwarded   IngressRule  K8sNetworkPolicy:default/web',
        '  Forwarding      Delivered   Output  to default/b',
        '',
      ].join('\n'),
    );
    expect(traceflowTree(tf, { noHeaders: true }).split('\n')[0]).toBe('node1 (Sender)');
  });

  test('a DNAT shows the translated address; a Service destination shows its name', () => {
    const tf: Traceflow = {
      metadata: { name: 'a-to-web-svc-abcde' },
      spec: { ...SPEC, destination: { namespace: 'default', service: 'web-svc' } },
      status: { phase: 'Succeeded', dataplaneTag: 11, results: [{ node: 'node1', role: 'Sender', observations: [{ component: 'LB', componentInfo: 'EndpointDNAT', action: 'Forwarded', translatedDstIP: '10.10.2.7' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'default/b' }] }] },
    };
    const out = traceflowTree(tf, { destinationIP: '10.96.0.10' });
    expect(out).toContain('dest      default/web-svc  10.96.0.10  tcp dport 80');
    expect(out).toContain('  LB              Forwarded   EndpointDNAT  DNAT to 10.10.2.7\n');
  });

  test('a policy drop gets the compiler verdict on the line below it', () => {
    const tf: Traceflow = {
      metadata: { name: 'a-to-b-zzzzz' },
      spec: SPEC,
      status: { phase: 'Succeeded', results: [{ node: 'node1', role: 'Sender', observations: [{ component: 'SpoofGuard', action: 'Forwarded' }, { component: 'NetworkPolicy', componentInfo: 'IngressMetric', action: 'Dropped', networkPolicy: 'AntreaClusterNetworkPolicy:acnp-web' }] }] },
    };
    const line = explainLine(EXPLANATION as never, 'Dropped');
    expect(line).toBe('explain: Drop by AntreaClusterNetworkPolicy:acnp-web rule 0 (drop-other) (agrees)');
    const out = traceflowTree(tf, { explain: line }).split('\n');
    expect(out.slice(-3, -1)).toEqual(['  NetworkPolicy   Dropped     IngressMetric  AntreaClusterNetworkPolicy:acnp-web', `                  ${line}`]);
    expect(explainLine({ ...(EXPLANATION as never as Parameters<typeof explainLine>[0]), allowed: true, action: 'Allow' }, 'Dropped')).toBe('explain: Allow (DISAGREES with the dataplane)');
    expect(explainLine(EXPLANATION as never, 'Rejected')).toContain('DISAGREES with the dataplane, which rejected it');
  });

  test('a Failed Traceflow shows its reason under the title', () => {
    const tf: Traceflow = { metadata: { name: 'a-to-b-fffff' }, spec: SPEC, status: { phase: 'Failed', reason: 'Traceflow timed out' } };
    expect(traceflowTree(tf).split('\n').slice(0, 2)).toEqual(['traceflow a-to-b-fffff: Failed', 'reason   Traceflow timed out']);
  });
});

describe('waiting', () => {
  test('stops at Succeeded, and at the deadline with the last phase', async () => {
    let t = 0;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const phases = ['Pending', 'Running', 'Succeeded'];
    const reads: number[] = [];
    const r = await awaitTraceflow({ read: () => {
        reads.push(t);
        return Promise.resolve({ metadata: {}, spec: SPEC, status: { phase: phases.shift() } } as Traceflow);
      }, clock, deadline: 10_000 });
    expect(r.done).toBe(true);
    expect(reads).toEqual([0, POLL_INTERVAL_MS, 2 * POLL_INTERVAL_MS]);
    const stuck = await awaitTraceflow({ read: () => Promise.resolve({ metadata: {}, spec: SPEC, status: { phase: 'Running' } } as Traceflow), clock, deadline: t + 1000 });
    expect(stuck).toMatchObject({ done: false, tf: { status: { phase: 'Running' } } });
  });
});

/** An API server stand-in: pods and services by path, Traceflows created by POST and finished by `finish`. */
function fakeKube(objects: Record<string, unknown>, finish: (tf: Traceflow) => Traceflow['status']) {
  const calls: string[] = [];
  const created: Traceflow[] = [];
  const notFound = (path: string) => new CliError('NOT_FOUND', `Error from server (NotFound): ${path} not found`, 404, path);
  const writer: KubeWriter = {
    server: 'https://kube.test',
    request<T>(method: string, path: string, body?: unknown): Promise<T> {
      calls.push(`${method} ${path}`);
      if (method === 'POST' && path === TRACEFLOWS_PATH) {
        created.push(body as Traceflow);
        return Promise.resolve(body as T);
      }
      const tf = created.find((c) => path === `${TRACEFLOWS_PATH}/${c.metadata.name}`);
      if (tf && method === 'GET') return Promise.resolve({ ...tf, status: finish(tf) } as T);
      if (tf && method === 'DELETE') return Promise.resolve({} as T);
      return path in objects ? Promise.resolve(objects[path] as T) : Promise.reject(notFound(path));
    },
  };
  return { writer, calls, created };
}

const OBJECTS = {
  '/api/v1/namespaces/default/pods/a': { status: { podIP: '10.10.1.5' } },
  '/api/v1/namespaces/default/pods/b': { status: { podIP: '10.10.2.7' } },
  '/api/v1/namespaces/x/services/web': { spec: { clusterIP: '10.96.0.10' } },
};

async function yardctl(argv: string[], finish: (tf: Traceflow) => Traceflow['status'], answers: Record<string, unknown> = {}) {
  const kube = fakeKube(OBJECTS, finish);
  const apiCalls: { path: string; query: Record<string, string | undefined> }[] = [];
  const c = captureIo(fakeApi(answers, apiCalls));
  const code = await runYardctl(argv, { ...c.io, connectKubeWriter: () => kube.writer });
  return { code, out: c.out(), err: c.err(), apiCalls, ...kube };
}

describe('yardctl traceflow (API server stand-in)', () => {
  test('--help exits 0 with examples', async () => {
    const r = await yardctl(['traceflow', '--help'], () => undefined);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Examples:');
    expect(r.out).toContain('--dropped-only');
  });

  const ok = (): Traceflow['status'] => ({ phase: 'Succeeded', dataplaneTag: 7, results: [{ node: 'n1', role: 'Sender', observations: [{ component: 'Forwarding', action: 'Delivered', pod: 'default/b' }] }] });

  test('-D names a Pod when one exists, else a Service; the Traceflow is deleted afterwards', async () => {
    const pod = await yardctl(['traceflow', '-S', 'a', '-D', 'default/b'], ok);
    expect(pod.code).toBe(0);
    expect(pod.created[0]?.spec).toEqual({ source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', pod: 'b' }, packet: { ipHeader: { protocol: 1 }, transportHeader: { icmp: { id: 0, sequence: 0 } } }, timeout: 20 });
    expect(pod.created[0]?.metadata.name).toMatch(/^a-to-b-[a-z0-9]{5}$/);
    expect(pod.calls.at(-1)).toBe(`DELETE ${TRACEFLOWS_PATH}/${pod.created[0]?.metadata.name}`);
    expect(pod.out).toContain('dest      default/b  10.10.2.7  icmp');
    const svc = await yardctl(['traceflow', '-S', 'default/a', '-D', 'web', '-n', 'x', '-f', 'tcp,tcp_dst=80', '--keep'], ok);
    expect(svc.code).toBe(0);
    expect(svc.created[0]?.spec.destination).toEqual({ namespace: 'x', service: 'web' });
    expect(svc.calls).toEqual(['GET /api/v1/namespaces/default/pods/a', 'GET /api/v1/namespaces/x/pods/web', 'GET /api/v1/namespaces/x/services/web', `POST ${TRACEFLOWS_PATH}`, `GET ${TRACEFLOWS_PATH}/${svc.created[0]?.metadata.name}`]);
    expect(svc.err).toContain('kept');
  });

  test('a destination that is neither Pod nor Service exits 1 naming it, and creates nothing', async () => {
    const r = await yardctl(['traceflow', '-S', 'a', '-D', 'x/nothing'], ok);
    expect(r.code).toBe(1);
    expect(r.err).toBe('error: destination "x/nothing": no Pod or Service "nothing" in namespace "x"\n');
    expect(r.created).toEqual([]);
  });

  test('usage errors exit 2 before any request', async () => {
    for (const [argv, text] of [
      [['traceflow', '-D', 'b'], '--source'],
      [['traceflow', '-S', 'a'], '--destination'],
      [['traceflow', '-S', 'a', '-D', 'b', '--dropped-only'], '--live'],
      [['traceflow', '-S', 'a', '-D', 'b', '-f', 'tcp,tcp_dst=x'], '"tcp_dst=x"'],
      [['traceflow', '-S', '10.0.0.1', '-D', 'b'], 'needs --live'],
      [['traceflow', '-S', 'a', '-D', 'b', '-t', '10m'], 'timeout'],
    ] as [string[], string][]) {
      const r = await yardctl(argv, ok);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.err).toContain(text);
      expect(r.created).toEqual([]);
    }
  });

  test('Failed exits 1 with the reason; json prints the final Traceflow', async () => {
    const r = await yardctl(['traceflow', '-S', 'a', '-D', 'b', '-o', 'json', '-t', '5s'], () => ({ phase: 'Failed', reason: 'no free tag' }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('failed: no free tag');
    expect(JSON.parse(r.out)).toMatchObject({ kind: 'Traceflow', spec: { timeout: 5 }, status: { phase: 'Failed', reason: 'no free tag' } });
  });

  test('a policy drop asks the controller to explain the same flow; no access is one line, not a failure', async () => {
    const drop = (): Traceflow['status'] => ({ phase: 'Succeeded', results: [{ node: 'n1', role: 'Sender', observations: [{ component: 'NetworkPolicy', componentInfo: 'IngressMetric', action: 'Dropped', networkPolicy: 'AntreaClusterNetworkPolicy:acnp-web' }] }] });
    const r = await yardctl(['traceflow', '-S', 'a', '-D', 'b', '-f', 'tcp,tcp_dst=80'], drop, { explain: EXPLANATION });
    expect(r.code).toBe(0);
    expect(r.out).toContain('explain: Drop by AntreaClusterNetworkPolicy:acnp-web rule 0 (drop-other) (agrees)');
    expect(r.apiCalls).toEqual([{ path: 'explain', query: { src: 'default/a', dst: 'default/b', protocol: 'TCP', port: '80' } }]);
    const none = await yardctl(['traceflow', '-S', 'a', '-D', 'b'], drop);
    expect(none.code).toBe(0);
    expect(none.out).toContain('explain: not available (unexpected path explain)');
  });
});
