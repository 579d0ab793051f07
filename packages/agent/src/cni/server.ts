/**
 * The agent's CNI server: gRPC (@grpc/grpc-js) on a unix socket, JSON messages (the plugin is a
 * bundled script without protobuf). Every request is answered with a result or a CNI spec error,
 * never a gRPC failure, so a bad input cannot break the plugin's output; requests for one
 * container id run one at a time, in arrival order.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { PodRequest } from '../features/pods/pod-network';
import type { CniResult } from './spec';
import { runPlugin } from './plugin/run';
import { silentLogger, type Logger } from '@switchyard/runtime';
import type { AgentMetrics } from '../metrics';
import {
  CNI_METHODS,
  CNI_SERVICE,
  CniError,
  CniErrorCode,
  formatResult,
  parseCniArgs,
  parseNetConf,
  parsePrevResult,
  type CniCommand,
  type CniReply,
  type CniRequest,
} from './spec';

/** Runs tasks with the same key one after the other. */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with work queued or running. */
  get pending(): number {
    return this.tails.size;
  }
}

/** Key of the stand-in for a request message that is not JSON. */
const MALFORMED = '\u0000malformed';
/** Key of the stand-in for a request message that is JSON but no object (grpc-js takes null, false, 0 or "" for no message). */
const NOT_OBJECT = '\u0000not-object';

/** Checks the shape of a decoded request (the plugin is trusted to send JSON, not to be right). */
function validateRequest(command: CniCommand, raw: unknown): CniRequest {
  if (raw === null || typeof raw !== 'object' || NOT_OBJECT in raw) throw new CniError(CniErrorCode.DecodeFailure, 'request is not a JSON object');
  const o = raw as Record<string, unknown>;
  if (typeof o[MALFORMED] === 'string') throw new CniError(CniErrorCode.DecodeFailure, 'request is not valid JSON', o[MALFORMED]);
  const str = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  const req: CniRequest = {
    command,
    containerId: str('containerId'),
    netns: str('netns'),
    ifname: str('ifname'),
    args: str('args'),
    path: str('path'),
    stdin: str('stdin'),
  };
  if (!req.containerId) throw new CniError(CniErrorCode.InvalidEnvironment, 'CNI_CONTAINERID is required');
  if (!req.ifname) throw new CniError(CniErrorCode.InvalidEnvironment, 'CNI_IFNAME is required');
  if (command !== 'DEL' && !req.netns) throw new CniError(CniErrorCode.InvalidEnvironment, 'CNI_NETNS is required');
  return req;
}

/** What the CNI handler needs from the pod datapath ({@link PodNetwork} in the agent). */
export interface PodOperations {
  add(req: PodRequest, prev?: CniResult): Promise<CniResult>;
  del(req: PodRequest): Promise<void>;
  check(req: PodRequest, prev: CniResult): Promise<void>;
  /** IPAM-only mode (switchyard-cni as another plugin's `ipam`); absent = not supported. */
  ipamAdd?(req: PodRequest, ippools: readonly string[]): Promise<CniResult>;
  ipamDel?(req: PodRequest, ippools: readonly string[]): Promise<void>;
  ipamCheck?(req: PodRequest, ippools: readonly string[], prev: CniResult): Promise<void>;
}

/** The IPAM type names that select this plugin as another plugin's IPAM. */
export const IPAM_TYPES: ReadonlySet<string> = new Set(['switchyard-cni', 'switchyard']);

/**
 * IPAM-only mode: the network configuration is another plugin's (`type` is not ours) and its
 * `ipam.type` names this plugin; then `ipam.ippools` lists the pools. Undefined otherwise.
 */
export function ipamModeOf(raw: Record<string, unknown>): { ippools: string[] } | undefined {
  const ipam = raw.ipam as Record<string, unknown> | undefined;
  if (ipam === null || typeof ipam !== 'object' || typeof ipam.type !== 'string' || !IPAM_TYPES.has(ipam.type) || IPAM_TYPES.has(String(raw.type))) return undefined;
  const pools = ipam.ippools;
  if (pools !== undefined && (!Array.isArray(pools) || pools.some((p) => typeof p !== 'string' || p === ''))) {
    throw new CniError(CniErrorCode.InvalidNetworkConfig, 'network configuration: ipam.ippools must be a list of IPPool names', JSON.stringify(pools));
  }
  return { ippools: (pools as string[] | undefined) ?? [] };
}

/** Turns a CNI request into a pod operation and its reply. */
export class CniHandler {
  private readonly serializer = new KeyedSerializer();
  private readonly log: Logger;

  private readonly metrics: AgentMetrics | undefined;

  constructor(
    private readonly pods: PodOperations,
    opts: { logger?: Logger; metrics?: AgentMetrics } = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    this.metrics = opts.metrics;
  }

  /** Handles one request; every failure becomes a spec error in the reply. */
  async handle(command: CniCommand, raw: unknown): Promise<CniReply> {
    const t0 = performance.now();
    const reply = await this.handleInner(command, raw);
    this.metrics?.cniRequest.observe((performance.now() - t0) / 1000, { command, result: reply.error ? String(reply.error.code) : 'ok' });
    return reply;
  }

  private async handleInner(command: CniCommand, raw: unknown): Promise<CniReply> {
    try {
      const req = validateRequest(command, raw);
      const conf = parseNetConf(req.stdin);
      const args = parseCniArgs(req.args);
      const podName = args.get('K8S_POD_NAME') ?? '';
      const podNamespace = args.get('K8S_POD_NAMESPACE') ?? '';
      if (command !== 'DEL' && (!podName || !podNamespace)) {
        throw new CniError(CniErrorCode.InvalidEnvironment, 'CNI_ARGS must carry K8S_POD_NAME and K8S_POD_NAMESPACE', req.args);
      }
      const pod: PodRequest = { containerId: req.containerId, netns: req.netns, ifname: req.ifname, podName, podNamespace };
      const ipamMode = ipamModeOf(conf.raw);
      if (ipamMode) {
        // Serialized per attachment: a secondary interface's IPAM runs beside the pod's own ADD.
        return await this.serializer.run(`${req.containerId}/${req.ifname}`, () => this.ipam(command, pod, ipamMode.ippools, conf));
      }
      return await this.serializer.run(req.containerId, async (): Promise<CniReply> => {
        switch (command) {
          case 'ADD': {
            // Chained after another plugin (networkPolicyOnly): its result comes in prevResult.
            const prev = conf.prevResult === undefined ? undefined : parsePrevResult(conf.prevResult);
            const result = await this.pods.add(pod, prev);
            return { result: JSON.stringify(formatResult(result, conf.cniVersion)) };
          }
          case 'DEL':
            await this.pods.del(pod);
            return {};
          case 'CHECK': {
            if (conf.prevResult === undefined) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'CHECK needs prevResult in the network configuration');
            await this.pods.check(pod, parsePrevResult(conf.prevResult));
            return {};
          }
        }
      });
    } catch (e) {
      const err = e instanceof CniError ? e : new CniError(CniErrorCode.InternalError, `${command} failed`, e instanceof Error ? e.message : String(e));
      this.log.warn({ command, code: err.code, msg: err.msg, details: err.details }, 'CNI request failed');
      return { error: { code: err.code, msg: err.msg, ...(err.details ? { details: err.details } : {}) } };
    }
  }

  private async ipam(command: CniCommand, pod: PodRequest, ippools: string[], conf: ReturnType<typeof parseNetConf>): Promise<CniReply> {
    const p = this.pods;
    if (!p.ipamAdd || !p.ipamDel || !p.ipamCheck) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'this agent does not serve IPAM-only requests');
    switch (command) {
      case 'ADD':
        return { result: JSON.stringify(formatResult(await p.ipamAdd(pod, ippools), conf.cniVersion)) };
      case 'DEL':
        await p.ipamDel(pod, ippools);
        return {};
      case 'CHECK':
        if (conf.prevResult === undefined) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'CHECK needs prevResult in the network configuration');
        await p.ipamCheck(pod, ippools, parsePrevResult(conf.prevResult));
        return {};
    }
  }
}

const serialize = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
/** Never throws: a malformed message reaches the handler, which answers with a spec error. */
const deserialize = (b: Buffer): unknown => {
  try {
    const v = JSON.parse(b.toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null ? v : { [NOT_OBJECT]: true };
  } catch (e) {
    // Not null: grpc-js would take that for "no message" and fail the call outside the handler.
    return { [MALFORMED]: e instanceof Error ? e.message : String(e) };
  }
};

/**
 * The method the native plugin calls (native/switchyard-cni.c): its whole invocation, the CNI
 * environment and stdin as `{"env": {...}, "stdin": "..."}`, answered with what it prints and its
 * exit code as raw bytes (`[code][stdout]`), so the C program decodes no JSON.
 */
export const CNI_EXEC_METHOD = 'Exec';

/** The gRPC service definition (paths `/switchyard.cni.v1.Cni/CmdAdd` etc., and Exec). */
export function cniServiceDefinition(): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const method of Object.values(CNI_METHODS)) {
    def[method] = {
      path: `/${CNI_SERVICE}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize,
      requestDeserialize: deserialize,
      responseSerialize: serialize,
      responseDeserialize: deserialize,
    };
  }
  const raw = (b: unknown): Buffer => b as Buffer;
  def[CNI_EXEC_METHOD] = { path: `/${CNI_SERVICE}/${CNI_EXEC_METHOD}`, requestStream: false, responseStream: false, requestSerialize: serialize, requestDeserialize: deserialize, responseSerialize: raw, responseDeserialize: raw };
  return def;
}

/** One native-plugin invocation run here: runPlugin with the handler in place of the socket. */
export async function execInvocation(handler: CniHandler, message: unknown): Promise<Buffer> {
  const m = (message ?? {}) as { env?: unknown; stdin?: unknown };
  const env: NodeJS.ProcessEnv = {};
  if (m.env !== null && typeof m.env === 'object') for (const [k, v] of Object.entries(m.env)) if (typeof v === 'string') env[k] = v;
  let printed = '';
  const code = await runPlugin(env, typeof m.stdin === 'string' ? m.stdin : '', (s) => (printed += `${s}\n`), (command, request) => handler.handle(command, request));
  return Buffer.concat([Buffer.of(code), Buffer.from(printed, 'utf8')]);
}

/** A running CNI server. */
export class CniServer {
  private constructor(
    private readonly server: grpc.Server,
    readonly socketPath: string,
  ) {}

  /** Binds `socketPath` (a stale socket file is replaced) and serves `handler`. */
  static async listen(socketPath: string, handler: CniHandler): Promise<CniServer> {
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    const server = new grpc.Server();
    const impl: grpc.UntypedServiceImplementation = {};
    for (const [command, method] of Object.entries(CNI_METHODS) as [CniCommand, string][]) {
      impl[method] = (call: grpc.ServerUnaryCall<unknown, CniReply>, callback: grpc.sendUnaryData<CniReply>) => {
        void handler.handle(command, call.request).then((reply) => callback(null, reply));
      };
    }
    impl[CNI_EXEC_METHOD] = (call: grpc.ServerUnaryCall<unknown, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      void execInvocation(handler, call.request).then((reply) => callback(null, reply));
    };
    server.addService(cniServiceDefinition(), impl);
    await new Promise<void>((resolve, reject) => {
      server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
    });
    // Owner only: whoever can connect can attach and detach pods (the runtime execs the plugin as root).
    chmodSync(socketPath, 0o600);
    return new CniServer(server, socketPath);
  }

  /** Stops accepting calls, lets running ones finish (up to `graceMs`), removes the socket. */
  async close(graceMs = 5000): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    rmSync(this.socketPath, { force: true });
  }
}
