// The kubelet's side of exec: an HTTPS endpoint `/exec/<ns>/<pod>/<container>?command=..` that
// upgrades to a WebSocket speaking Kubernetes' channel protocol (v5.channel.k8s.io and
// v4.channel.k8s.io) and runs the command through an injected starter, with a handle on its process.

import type { ChildProcess } from 'node:child_process';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { constants } from 'node:os';
import type { Duplex } from 'node:stream';
import { issueCertificate } from '@switchyard/pki';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { respondOnSocket } from './exec';
import { type Logger, silentLogger } from './types';

/** The WebSocket subprotocols served, preferred first. v5 adds closing a stream (stdin EOF). */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

/** The channel of each message: its first byte. */
export const ExecChannel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** One exec as the kubelet receives it. */
export interface ExecRequest {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface KubeletExecOptions {
  /**
   * Starts the command in the container, stdio piped (e.g. `spawn(cmd, args, { stdio: 'pipe' })`);
   * throws when there is no such pod or container (the caller sees the message as the exec's error).
   */
  start(request: ExecRequest): ChildProcess;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /**
   * CA whose client certificates alone may connect (kubelet's --client-ca-file): the API server's
   * CA, which signed the client certificate it presents. Absent: any client.
   */
  clientCaPem?: string;
  logger?: Logger;
}

export interface KubeletExecServer {
  port: number;
  /** Ends every exec (its process killed) and stops listening. */
  stop(): Promise<void>;
}

/** Thrown by a {@link KubeletExecOptions.start} that finds no such pod or container. */
export class ExecTargetError extends Error {
  readonly code = 'EXEC_TARGET_NOT_FOUND';
  constructor(message: string, readonly target: string) {
    super(message);
    this.name = 'ExecTargetError';
  }
}

/** The exec a request path and query name, or why not (field and value). */
export function parseExecRequest(url: URL): ExecRequest | string {
  const m = /^\/exec\/([^/]+)\/([^/]+)\/([^/]+)\/?$/.exec(url.pathname);
  if (!m) return `path: expected /exec/<namespace>/<pod>/<container>, got ${JSON.stringify(url.pathname)}`;
  const q = url.searchParams;
  const command = q.getAll('command');
  if (command.length === 0) return 'command: Required value: you must specify at least one command for the container';
  const flag = (name: string): boolean => q.get(name) === 'true' || q.get(name) === '1';
  const [namespace, pod, container] = [m[1], m[2], m[3]].map((s) => decodeURIComponent(s as string)) as [string, string, string];
  return { namespace, pod, container, command, stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
}

/** The Status on the error channel when the command has ended (exit code, or the signal as 128+n). */
export function exitStatus(command: readonly string[], code: number | null, signal: NodeJS.Signals | null): Record<string, unknown> {
  const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

function failure(message: string): Record<string, unknown> {
  return { metadata: {}, status: 'Failure', message, reason: 'InternalError', details: { causes: [{ message }] } };
}

function frame(channel: number, data: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** One exec session: the process, its streams on their channels, and its end on the error channel. */
function runSession(ws: WebSocket, r: ExecRequest, start: KubeletExecOptions['start'], sessions: Set<() => void>, logger: Logger): void {
  let ended = false;
  const finish = (status: Record<string, unknown>): void => {
    if (ended) return;
    ended = true;
    sessions.delete(kill);
    ws.send(frame(ExecChannel.error, JSON.stringify(status)), () => ws.close(1000));
  };
  let child: ChildProcess;
  try {
    child = start(r);
  } catch (e) {
    finish(failure((e as Error).message));
    return;
  }
  const kill = (): void => void child.kill('SIGKILL');
  sessions.add(kill);
  const forward = (channel: number) => (c: Buffer) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(frame(channel, c));
  };
  // Without a terminal here, a tty exec (stderr not asked for) gets stderr on stdout, as on a terminal.
  if (r.stdout) child.stdout?.on('data', forward(ExecChannel.stdout));
  else child.stdout?.resume();
  if (r.stderr) child.stderr?.on('data', forward(ExecChannel.stderr));
  else if (r.tty && r.stdout) child.stderr?.on('data', forward(ExecChannel.stdout));
  else child.stderr?.resume();
  child.stdin?.on('error', () => undefined);
  if (!r.stdin) child.stdin?.end();
  ws.on('message', (data) => {
    const b = asBuffer(data);
    if (b[0] === ExecChannel.stdin && r.stdin) child.stdin?.write(b.subarray(1));
    else if (b[0] === ExecChannel.close && b[1] === ExecChannel.stdin) child.stdin?.end();
    // resize (4): no terminal to resize.
  });
  ws.on('close', () => {
    // The caller went away: the command goes with it.
    if (!ended) kill();
  });
  child.on('error', (e) => {
    logger.warn({ err: e, command: r.command }, 'exec failed to start');
    finish(failure(`failed to exec in container: ${e.message}`));
  });
  child.on('close', (code, signal) => finish(exitStatus(r.command, code, signal)));
}

/** Starts the kubelet's exec endpoint (HTTPS, a self-signed serving certificate). */
export async function startKubeletExec(o: KubeletExecOptions): Promise<KubeletExecServer> {
  const logger = o.logger ?? silentLogger;
  const host = o.host ?? '127.0.0.1';
  const serving = await issueCertificate({ commonName: 'kubelet', sans: [host], validityDays: 365, ca: false, keyUsage: ['digitalSignature'], extendedKeyUsage: ['serverAuth'] });
  const sessions = new Set<() => void>();
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ...(o.clientCaPem ? { ca: o.clientCaPem, requestCert: true, rejectUnauthorized: true } : {}) },
    (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'text/plain' });
      res.end('Upgrade request required');
    },
  );
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (code: number, message: string): void => respondOnSocket(socket, code, code === 404 ? 'Not Found' : 'Bad Request', { 'Content-Type': 'text/plain' }, Buffer.from(message));
    const r = parseExecRequest(new URL(req.url ?? '/', 'https://kubelet'));
    if (typeof r === 'string') return refuse(r.startsWith('path') ? 404 : 400, r);
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return refuse(400, `upgrade: only websocket is served (subprotocols ${EXEC_PROTOCOLS.join(', ')}), got ${JSON.stringify(req.headers.upgrade ?? '')}`);
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
    if (!EXEC_PROTOCOLS.some((p) => offered.includes(p))) return refuse(400, `sec-websocket-protocol: none of ${EXEC_PROTOCOLS.join(', ')} offered, got ${JSON.stringify(offered.join(', '))}`);
    wss.handleUpgrade(req, socket, head, (ws) => runSession(ws, r, o.start, sessions, logger));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    async stop() {
      for (const kill of [...sessions]) kill();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
