/**
 * TCP listening sockets in the node's network namespace, served by this process.
 *
 * On a real node the agent lives in the node's namespace and listens directly. In the lab it does
 * not, and Node cannot enter another namespace. So one small child runs there (`nsenter` then
 * `node -e`), opens each listening socket on request and hands it to the agent over the IPC
 * channel (Node passes the descriptor with SCM_RIGHTS, as its cluster module does); the agent
 * accepts and serves the connections itself. The child exits when the agent's end of the channel
 * closes, so it never outlives the agent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { AgentError } from '../errors';

/** What runs in the node's namespace: listen on request, send the socket, close its own copy. */
const CHILD = [
  "const net = require('net');",
  'process.on("message", (m) => {',
  '  const s = net.createServer();',
  '  s.once("error", (e) => process.send({ id: m.id, error: e.message }));',
  '  s.listen({ port: m.port, host: m.host }, () => process.send({ id: m.id }, s, () => s.close()));',
  '});',
  'process.on("disconnect", () => process.exit(0));',
].join('\n');

interface Reply {
  id: number;
  error?: string;
}

export class NetnsListener {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (s: Server) => void; reject: (e: Error) => void }>();

  /**
   * @param netnsPath path of the node's namespace file; undefined: the agent's own namespace.
   * @param nodeBinary the Node.js binary the child runs (default this one).
   */
  constructor(
    private readonly netnsPath: string | undefined,
    private readonly nodeBinary = process.execPath,
  ) {}

  /** A listening server on `host:port` in the node's namespace (EADDRINUSE and the like reject). */
  async listen(port: number, host = '0.0.0.0'): Promise<Server> {
    if (this.netnsPath === undefined) {
      const s = createServer();
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen({ port, host }, () => {
          s.off('error', reject);
          resolve();
        });
      });
      return s;
    }
    const child = this.start();
    const id = this.nextId++;
    return new Promise<Server>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      child.send({ id, port, host });
    });
  }

  /** Ends the child (its sockets already handed over stay open in this process). */
  close(): void {
    const c = this.child;
    this.child = undefined;
    if (c?.connected) c.disconnect();
    for (const [, w] of this.waiting) w.reject(new AgentError('SERVICE_HOST_NETWORK', 'netns listener closed'));
    this.waiting.clear();
  }

  private start(): ChildProcess {
    if (this.child?.connected) return this.child;
    const child = spawn('nsenter', [`--net=${this.netnsPath!}`, this.nodeBinary, '-e', CHILD], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    child.on('message', (m: Reply, handle: unknown) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined || !(handle instanceof Object)) w.reject(new AgentError('SERVICE_HOST_NETWORK', `listening in ${this.netnsPath!}: ${m.error ?? 'no socket received'}`));
      else w.resolve(handle as Server);
    });
    child.on('exit', (code) => {
      if (this.child === child) this.child = undefined;
      for (const [, w] of this.waiting) w.reject(new AgentError('SERVICE_HOST_NETWORK', `netns listener exited (${String(code)}): ${stderr.trim()}`));
      this.waiting.clear();
    });
    child.on('error', () => undefined); // the exit handler reports
    this.child = child;
    return child;
  }
}
