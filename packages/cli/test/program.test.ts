import { parseDuration, runYardctl } from '../src/program';
import { CliError } from '../src/errors';
import { ADDRESS_GROUPS, captureIo, EXPLANATION, fakeApi, POLICIES } from './fixtures';

const run = async (argv: string[], answers: Record<string, unknown> = {}, calls: { path: string; query: Record<string, string | undefined> }[] = [], isTTY = false) => {
  const c = captureIo(fakeApi(answers, calls), isTTY);
  const code = await runYardctl(argv, c.io);
  return { code, out: c.out(), err: c.err() };
};

describe('argument parsing and exit codes', () => {
  test('an unknown output format exits 2 with the reason on stderr and nothing on stdout', async () => {
    const r = await run(['get', 'netpol', '-o', 'xml']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('output format "xml"');
  });

  test('an unknown flag exits 2', async () => {
    const r = await run(['get', 'ag', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--bogus'");
  });

  test('an unknown resource exits 1 with kubectl wording', async () => {
    const r = await run(['get', 'pods']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('error: the server doesn\'t have a resource type "pods" (yardctl get --help lists them)\n');
  });

  test('explain without --from exits 2; a bad port or protocol exits 2 naming the value', async () => {
    expect((await run(['policy', 'explain', '--to', 'x/web'])).code).toBe(2);
    const port = await run(['policy', 'explain', '--from', 'x/a', '--to', 'x/web', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.err).toContain('invalid port "70000"');
    const proto = await run(['policy', 'explain', '--from', 'x/a', '--to', 'x/web', '--protocol', 'FOO']);
    expect(proto.code).toBe(2);
    expect(proto.err).toContain('invalid protocol "FOO"');
    const ep = await run(['policy', 'explain', '--from', 'not an endpoint', '--to', 'x/web']);
    expect(ep.code).toBe(2);
  });

  test('explain --ip-family passes the family to the controller (any case), and refuses another value naming it', async () => {
    const calls: { path: string; query: Record<string, string | undefined> }[] = [];
    expect((await run(['policy', 'explain', '--from', 'x/a', '--to', 'x/web', '--port', '80', '--ip-family', 'ipv6'], { explain: EXPLANATION }, calls)).code).toBe(0);
    expect(calls).toEqual([{ path: 'explain', query: { src: 'x/a', dst: 'x/web', protocol: 'TCP', port: '80', ipFamily: 'IPv6' } }]);
    const bad = await run(['policy', 'explain', '--from', 'x/a', '--to', 'x/web', '--ip-family', 'IPv5']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('invalid IP family "IPv5"');
  });

  test('-n with -A is a usage error', async () => {
    expect((await run(['get', 'netpol', '-n', 'x', '-A'], { networkpolicies: POLICIES })).code).toBe(2);
  });

  test('--help on every command exits 0 and shows examples on stdout', async () => {
    for (const argv of [[], ['get'], ['get', 'netpol'], ['get', 'ag'], ['get', 'atg'], ['get', 'ci'], ['policy', 'explain'], ['query', 'endpoint'], ['completion'], ['mc'], ['mc', 'get', 'clusterset'], ['mc', 'get', 'joinconfig'], ['mc', 'init'], ['mc', 'join'], ['mc', 'leave'], ['mc', 'destroy']]) {
      const r = await run([...argv, '--help']);
      expect({ argv, code: r.code }).toEqual({ argv, code: 0 });
      expect(r.out).toContain('Examples:');
      expect(r.err).toBe('');
    }
  });

  test('durations parse like Go durations; garbage is a usage error', () => {
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('5')).toBe(5000);
    expect(() => parseDuration('soon')).toThrow(CliError);
  });

  test('a bad --timeout exits 2', async () => {
    expect((await run(['-t', 'soon', 'get', 'ci'])).code).toBe(2);
  });
});

describe('commands over a read API', () => {
  test('get netpol -n filters by the source namespace and prints the table', async () => {
    const r = await run(['get', 'netpol', '-n', 'x'], { networkpolicies: POLICIES });
    expect(r.code).toBe(0);
    expect(r.out).toBe('NAMESPACE   NAME              APPLIED-TO   RULES\nx           web-from-client   atg-1        1\n');
  });

  test('an empty list says No resources found on stderr (exit 0, nothing on stdout) in a table, [] in JSON', async () => {
    const r = await run(['get', 'netpol', '-n', 'z'], { networkpolicies: POLICIES });
    expect(r).toMatchObject({ code: 0, out: '', err: 'No resources found in z namespace.\n' });
    const g = await run(['get', 'ag'], { addressgroups: { kind: 'AddressGroupList', items: [] } });
    expect(g).toMatchObject({ code: 0, out: '', err: 'No resources found\n' });
    const j = await run(['get', 'netpol', '-n', 'z', '-o', 'json'], { networkpolicies: POLICIES });
    expect(JSON.parse(j.out).items).toEqual([]);
  });

  test('get netpol lists in kubectl order: by namespace (cluster-scoped first), then name', async () => {
    const r = await run(['get', 'netpol', '--no-headers'], { networkpolicies: POLICIES });
    expect(r.out.split('\n').map((l) => l.split(/\s+/)[1])).toEqual(['acnp-web', 'web-from-client', undefined]);
  });

  test('get netpol <name> -o json prints that item alone', async () => {
    const r = await run(['get', 'networkpolicy', 'acnp-web', '-o', 'json'], { networkpolicies: POLICIES });
    expect(JSON.parse(r.out)).toEqual(POLICIES.items[1]);
  });

  test('a missing name exits 1 with NotFound', async () => {
    const r = await run(['get', 'netpol', 'nope'], { networkpolicies: POLICIES });
    expect(r.code).toBe(1);
    expect(r.err).toBe('Error from server (NotFound): networkpolicies "nope" not found\n');
  });

  test('get ag --node passes nodeName to the read API', async () => {
    const calls: { path: string; query: Record<string, string | undefined> }[] = [];
    const r = await run(['get', 'ag', '--node', 'node-a', '--no-headers'], { addressgroups: ADDRESS_GROUPS }, calls);
    expect(calls).toEqual([{ path: 'addressgroups', query: { nodeName: 'node-a' } }]);
    expect(r.out).toBe('ag-1   10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...\n');
  });

  test('policy explain sends the flow and prints the verdict without color when not a TTY', async () => {
    const calls: { path: string; query: Record<string, string | undefined> }[] = [];
    const r = await run(['policy', 'explain', '--from', 'y/a', '--to', 'x/web', '--port', '80', '--protocol', 'tcp'], { explain: EXPLANATION }, calls);
    expect(calls[0]).toEqual({ path: 'explain', query: { src: 'y/a', dst: 'x/web', protocol: 'TCP', port: '80' } });
    expect(r.out.split('\n')[0]).toBe('TCP y/a -> x/web:80: DENIED (Drop)');
    expect(r.out).not.toContain('\u001b');
    const tty = await run(['policy', 'explain', '--from', 'y/a', '--to', 'x/web'], { explain: EXPLANATION }, [], true);
    expect(tty.out).toContain('\u001b[31mDENIED');
    const json = await run(['policy', 'explain', '--from', 'y/a', '--to', 'x/web', '-o', 'json'], { explain: EXPLANATION }, [], true);
    expect(JSON.parse(json.out)).toEqual(EXPLANATION);
  });

  test('query endpoint accepts name with -n and a bare name without -n is a usage error', async () => {
    const calls: { path: string; query: Record<string, string | undefined> }[] = [];
    const answer = { appliedPolicies: [{ type: 'K8sNetworkPolicy', namespace: 'x', name: 'np', uid: 'k' }], ingressSrcRules: [], egressDstRules: [] };
    const r = await run(['query', 'endpoint', 'web', '-n', 'x'], { endpointquery: answer }, calls);
    expect(calls[0]?.query).toEqual({ pod: 'x/web' });
    expect(r.out).toContain('K8sNP:x/np');
    expect((await run(['query', 'endpoint', 'web'])).code).toBe(2);
  });

  test('a failing read API exits 1 with its message on stderr', async () => {
    const c = captureIo({ get: () => Promise.reject(new CliError('UNREACHABLE', 'unable to connect to the server at https://127.0.0.1:1: connect ECONNREFUSED')) });
    expect(await runYardctl(['get', 'ci'], c.io)).toBe(1);
    expect(c.err()).toBe('error: unable to connect to the server at https://127.0.0.1:1: connect ECONNREFUSED\n');
    expect(c.out()).toBe('');
  });

  test('completion bash lists the subcommands and aliases of get', async () => {
    const r = await run(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/"get"\) opts="networkpolicy netpol networkpolicies addressgroup ag addressgroups/);
    expect(r.out).toContain('complete -F _yardctl yardctl kubectl-yardctl');
    expect((await run(['completion', 'fish'])).code).toBe(2);
  });
});
