// The stand-ins of image programs a lab exec runs: which commands map, and agnhost connect's
// exit codes and output against real sockets on loopback.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { imageCommand, isAgnhostImage } from '../src/images';

const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.52';

function run(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

let server: net.Server;
let port: number;
let closedPort: number;
beforeAll(async () => {
  server = net.createServer((c) => c.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as net.AddressInfo).port;
  // A port that was just free and now has no listener: connections to it are refused.
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('imageCommand', () => {
  it('maps /agnhost of an agnhost image to the stand-in, and nothing else', () => {
    expect(isAgnhostImage(AGNHOST)).toBe(true);
    expect(isAgnhostImage('agnhost')).toBe(true);
    expect(isAgnhostImage('example.com/not-agnhost:1')).toBe(false);
    expect(imageCommand(AGNHOST, ['/agnhost', 'connect', 'a:1']).slice(0, 2)).toEqual(['sh', '-c']);
    expect(imageCommand(AGNHOST, ['/agnhost', 'connect', 'a:1']).slice(3)).toEqual(['agnhost', 'connect', 'a:1']);
    expect(imageCommand('busybox', ['/agnhost', 'connect', 'a:1'])).toEqual(['/agnhost', 'connect', 'a:1']);
    expect(imageCommand(AGNHOST, ['sh', '-c', 'true'])).toEqual(['sh', '-c', 'true']);
  });
});

describe("the lab's agnhost connect", () => {
  it('exits 0 when the TCP connection opens', async () => {
    expect(await run(imageCommand(AGNHOST, ['/agnhost', 'connect', `127.0.0.1:${port}`, '--timeout=3s']))).toEqual({ code: 0, stderr: '' });
  });

  it('exits 1 with REFUSED when nothing listens', async () => {
    expect(await run(imageCommand(AGNHOST, ['/agnhost', 'connect', `127.0.0.1:${closedPort}`, '--timeout', '3s']))).toEqual({ code: 1, stderr: 'REFUSED\n' });
  });

  it('names an unusable argument and a subcommand it does not have', async () => {
    expect(await run(imageCommand(AGNHOST, ['/agnhost', 'connect', `127.0.0.1:${port}`, '--timeout=3x']))).toEqual({ code: 1, stderr: 'OTHER: --timeout: invalid duration "3x"\n' });
    expect(await run(imageCommand(AGNHOST, ['/agnhost', 'connect', 'no-port']))).toEqual({ code: 1, stderr: 'OTHER: expected host:port, got "no-port"\n' });
    expect(await run(imageCommand(AGNHOST, ['/agnhost', 'netexec']))).toEqual({ code: 1, stderr: 'the lab\'s agnhost stand-in serves only connect, not "netexec"\n' });
  });
});
