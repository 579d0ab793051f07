// Stream transports to an OVSDB server: unix socket, TCP, TLS with a client certificate.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import { OvsdbError } from './errors';

/** TLS material for `ssl:` remotes (PEM strings or Buffers, as node:tls takes them). */
export interface TlsOptions {
  /** Client private key. */
  key?: string | Buffer;
  /** Client certificate (OVSDB servers configured with --private-key/--certificate need one). */
  cert?: string | Buffer;
  /** CA certificate(s) the server certificate must chain to. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Server name for SNI and certificate checks (defaults to the host). */
  servername?: string;
  /** Defaults to true. */
  rejectUnauthorized?: boolean;
}

/** Where to connect: an OVS-style remote string or a parsed endpoint. */
export type Remote =
  | string
  | { kind: 'unix'; path: string }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'ssl'; host: string; port: number; tls?: TlsOptions };

/** Parsed endpoint. */
export type Endpoint = Exclude<Remote, string>;

/** Error connecting or parsing a remote. */
export class TransportError extends OvsdbError {
  readonly remote: string;
  constructor(
    code: 'OVSDB_BAD_REMOTE' | 'OVSDB_CONNECT_FAILED',
    message: string,
    remote: string,
    cause?: unknown,
  ) {
    super(code, message, { cause });
    this.remote = remote;
  }
}

/** Parses `unix:PATH`, `tcp:HOST:PORT`, `ssl:HOST:PORT` (IPv6 hosts in brackets) as ovs-vsctl's --db does. */
export function parseRemote(remote: Remote, tls?: TlsOptions): Endpoint {
  if (typeof remote !== 'string') return remote;
  const colon = remote.indexOf(':');
  const scheme = colon < 0 ? '' : remote.slice(0, colon);
  const rest = remote.slice(colon + 1);
  if (scheme === 'unix' && rest) return { kind: 'unix', path: rest };
  if (scheme === 'tcp' || scheme === 'ssl') {
    const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(rest);
    if (m) {
      const host = (m[1] ?? m[2])!;
      const port = Number(m[3]);
      if (port > 0 && port < 65536) {
        return scheme === 'tcp'
          ? { kind: 'tcp', host, port }
          : { kind: 'ssl', host, port, ...(tls ? { tls } : {}) };
      }
    }
  }
  throw new TransportError('OVSDB_BAD_REMOTE', `unsupported OVSDB remote ${JSON.stringify(remote)}`, remote);
}

/** Human-readable form of an endpoint for logs and errors. */
export function describeEndpoint(e: Endpoint): string {
  return e.kind === 'unix' ? `unix:${e.path}` : `${e.kind}:${e.host}:${e.port}`;
}

/** Opens a stream to the endpoint; resolves once connected (TLS: once the handshake is done). */
export function openStream(endpoint: Endpoint, timeoutMs = 10_000): Promise<Duplex> {
  const name = describeEndpoint(endpoint);
  return new Promise<Duplex>((resolve, reject) => {
    let sock: Socket;
    const readyEvent = endpoint.kind === 'ssl' ? 'secureConnect' : 'connect';
    if (endpoint.kind === 'unix') sock = netConnect({ path: endpoint.path });
    else if (endpoint.kind === 'tcp') sock = netConnect({ host: endpoint.host, port: endpoint.port });
    else {
      const t = endpoint.tls ?? {};
      const opts: ConnectionOptions = { host: endpoint.host, port: endpoint.port };
      // SNI must not carry an IP address; the certificate's IP SAN is still checked against the host.
      const servername = t.servername ?? (isIP(endpoint.host) ? undefined : endpoint.host);
      if (servername !== undefined) opts.servername = servername;
      if (t.key !== undefined) opts.key = t.key;
      if (t.cert !== undefined) opts.cert = t.cert;
      if (t.ca !== undefined) opts.ca = t.ca;
      if (t.rejectUnauthorized !== undefined) opts.rejectUnauthorized = t.rejectUnauthorized;
      sock = tlsConnect(opts);
    }
    const timer = setTimeout(() => {
      sock.destroy();
      reject(
        new TransportError(
          'OVSDB_CONNECT_FAILED',
          `connecting to ${name} timed out after ${timeoutMs} ms`,
          name,
        ),
      );
    }, timeoutMs);
    const onError = (err: Error) => {
      clearTimeout(timer);
      sock.destroy();
      reject(
        new TransportError('OVSDB_CONNECT_FAILED', `cannot connect to ${name}: ${err.message}`, name, err),
      );
    };
    sock.once('error', onError);
    sock.once(readyEvent, () => {
      clearTimeout(timer);
      sock.off('error', onError);
      sock.setNoDelay?.(true);
      resolve(sock);
    });
  });
}
