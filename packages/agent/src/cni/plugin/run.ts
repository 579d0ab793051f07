/**
 * The CNI plugin's whole behaviour as a function of its environment and stdin: answers VERSION,
 * forwards ADD/DEL/CHECK to the agent's gRPC server on a unix socket, and prints either the result
 * or a spec error JSON. Kept apart from the entry point so tests (and the fuzzer) call it in-process.
 */
import {
  CNI_METHODS,
  CNI_SERVICE,
  CURRENT_CNI_VERSION,
  CniError,
  CniErrorCode,
  SUPPORTED_CNI_VERSIONS,
  compareVersions,
  parseNetConf,
  type CniCommand,
  type CniReply,
  type CniRequest,
} from '../spec';
import { GrpcCallError, grpcUnary } from './grpc-client';

/** Where the agent listens unless the network configuration (`cniSocket`) or env says otherwise. */
const DEFAULT_SOCKET = '/var/run/antrea/cni.sock';
const TIMEOUT_MS = 120_000;

function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name];
  if (v === undefined || v === '') throw new CniError(CniErrorCode.InvalidEnvironment, `required environment variable ${name} is missing`);
  return v;
}

/** How an invocation reaches the agent: over its socket (the Node.js plugin), or in-process (the server's Exec). */
export type CniCall = (command: CniCommand, request: CniRequest, socket: string) => Promise<CniReply>;

/** The Node.js plugin's call: gRPC to the agent's socket (a `GrpcCallError` when it cannot be reached). */
export const grpcCall: CniCall = async (command, request, socket) => {
  const bytes = await grpcUnary(socket, `/${CNI_SERVICE}/${CNI_METHODS[command]}`, Buffer.from(JSON.stringify(request)), TIMEOUT_MS);
  return JSON.parse(bytes.toString('utf8')) as CniReply;
};

/**
 * Runs one plugin invocation. `out` receives exactly one line's worth of JSON (the result, the
 * VERSION answer or a CNI error); the promise gives the exit code and never rejects. The agent's
 * Exec method runs this same function for the native plugin, with `call` reaching the handler
 * directly, so both plugins answer alike.
 */
export async function runPlugin(env: NodeJS.ProcessEnv, stdin: string, out: (s: string) => void, call: CniCall = grpcCall): Promise<number> {
  let version = CURRENT_CNI_VERSION;
  try {
    const command = env.CNI_COMMAND;
    if (command === 'VERSION') {
      out(JSON.stringify({ cniVersion: CURRENT_CNI_VERSION, supportedVersions: SUPPORTED_CNI_VERSIONS }));
      return 0;
    }
    if (command !== 'ADD' && command !== 'DEL' && command !== 'CHECK') {
      throw new CniError(CniErrorCode.InvalidEnvironment, `unknown CNI_COMMAND ${JSON.stringify(command ?? '')}`, 'expected ADD, DEL, CHECK or VERSION');
    }
    const conf = parseNetConf(stdin);
    version = conf.cniVersion;
    const cmd: CniCommand = command;
    const request: CniRequest = {
      command: cmd,
      containerId: requireEnv(env, 'CNI_CONTAINERID'),
      netns: cmd === 'DEL' ? (env.CNI_NETNS ?? '') : requireEnv(env, 'CNI_NETNS'),
      ifname: requireEnv(env, 'CNI_IFNAME'),
      args: env.CNI_ARGS ?? '',
      path: env.CNI_PATH ?? '',
      stdin,
    };
    if (cmd === 'CHECK' && compareVersions(version, '0.4.0') < 0) {
      throw new CniError(CniErrorCode.IncompatibleVersion, `CHECK is not defined for CNI version ${version}`, 'CHECK needs 0.4.0 or later');
    }
    // As another plugin's IPAM, the socket is a key of the `ipam` section.
    const ipamSocket = (conf.raw.ipam as { cniSocket?: unknown } | undefined)?.cniSocket;
    const socket = typeof conf.raw.cniSocket === 'string' ? conf.raw.cniSocket : typeof ipamSocket === 'string' ? ipamSocket : (env.SWITCHYARD_CNI_SOCKET ?? DEFAULT_SOCKET);
    let reply: CniReply;
    try {
      reply = await call(cmd, request, socket);
    } catch (e) {
      if (e instanceof GrpcCallError) throw new CniError(CniErrorCode.TryAgainLater, 'switchyard agent unavailable', e.message);
      throw new CniError(CniErrorCode.DecodeFailure, 'bad reply from switchyard agent', e instanceof Error ? e.message : String(e));
    }
    if (reply.error) throw new CniError(reply.error.code, reply.error.msg, reply.error.details ?? '');
    if (reply.result) out(reply.result);
    return 0;
  } catch (e) {
    const err = e instanceof CniError ? e : new CniError(CniErrorCode.InternalError, 'switchyard-cni failed', e instanceof Error ? e.message : String(e));
    out(JSON.stringify(err.toJSON(version)));
    return 1;
  }
}
