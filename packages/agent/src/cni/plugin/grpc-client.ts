/**
 * A minimal gRPC unary client over node:http2 and a unix socket, so the plugin needs no gRPC
 * library: a length-prefixed message (1 flag byte + uint32 length) in an HTTP/2 POST to
 * `/<service>/<method>`, status from the `grpc-status` trailer (or header, for trailers-only).
 */
import { connect, constants } from 'node:http2';
import { connect as netConnect } from 'node:net';

/** A call that did not end with grpc-status 0, or never got that far (`status` undefined). */
export class GrpcCallError extends Error {
  readonly code = 'GRPC_CALL_FAILED';
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'GrpcCallError';
  }
}

/** Frames one message: compressed flag 0, big-endian length, bytes. */
export function grpcFrame(message: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt8(0, 0);
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** Unary call: sends `request`, returns the single response message's bytes. */
export function grpcUnary(socketPath: string, path: string, request: Uint8Array, timeoutMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const session = connect('http://localhost', { createConnection: () => netConnect(socketPath) });
    const finish = (err: Error | undefined, value?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.close();
      if (err) reject(err);
      else resolve(value as Buffer);
    };
    const timer = setTimeout(() => {
      finish(new GrpcCallError(`no answer from ${socketPath} within ${timeoutMs} ms`, 4));
      session.destroy();
    }, timeoutMs);
    session.on('error', (e) => finish(new GrpcCallError(`cannot reach ${socketPath}: ${e.message}`, undefined)));
    const req = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${Math.max(1, Math.ceil(timeoutMs))}m`,
    });
    const chunks: Buffer[] = [];
    let status: number | undefined;
    let message = '';
    const readStatus = (h: Record<string, unknown>): void => {
      if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']);
      if (typeof h['grpc-message'] === 'string') message = decodeURIComponent(h['grpc-message']);
    };
    req.on('response', (headers) => readStatus(headers));
    req.on('trailers', (trailers) => readStatus(trailers));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (e) => finish(new GrpcCallError(`call ${path} failed: ${e.message}`, undefined)));
    req.on('end', () => {
      if (status === undefined) return finish(new GrpcCallError(`call ${path} ended without grpc-status`, undefined));
      if (status !== 0) return finish(new GrpcCallError(`call ${path}: ${message || `grpc-status ${status}`}`, status));
      const body = Buffer.concat(chunks);
      if (body.length < 5) return finish(new GrpcCallError(`call ${path}: empty response`, status));
      if (body.readUInt8(0) !== 0) return finish(new GrpcCallError(`call ${path}: compressed response not supported`, status));
      const len = body.readUInt32BE(1);
      if (body.length < 5 + len) return finish(new GrpcCallError(`call ${path}: truncated response`, status));
      finish(undefined, body.subarray(5, 5 + len));
    });
    req.end(grpcFrame(request));
  });
}
