/**
 * WireGuard between nodes: keys (X25519, kept on disk), the public-key annotation on the Node,
 * the peers a node's Nodes give, and the UAPI text protocol wireguard-go (and the kernel's
 * `wg` tool) speak. Pure except for the key file and the UAPI socket at the end.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { KubeObject } from '@switchyard/kube';
import { AgentError } from './errors';
import { nodeFacts } from './node-routes';

/** The Node annotation holding a node's WireGuard public key (base64), Antrea's name. */
export const WIREGUARD_PUBLIC_KEY_ANNOTATION = 'node.antrea.io/wireguard-public-key';
/** Bytes a WireGuard packet adds; Antrea's `WireGuardOverhead` (IPv6 outer header, with margin). */
export const WIREGUARD_OVERHEAD = 80;
/** The device the agent creates (Antrea's default `antrea-wg0`, renamed for this project). */
export const WIREGUARD_DEVICE = 'switchyard-wg0';

/**
 * Keepalive of every peer, seconds. Turning it on makes wireguard-go send one keepalive (so a
 * handshake) at once: a restarted agent's new device handshakes with its peers right away instead
 * of waiting for a peer's stale session to time out (about 15 s of one-way loss).
 */
export const WIREGUARD_KEEPALIVE_S = 25;

/** A Curve25519 key (private or public): 32 bytes, base64 as `wg` prints it. */
const KEY_BYTES = 32;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;

/** The 32 bytes of a base64 WireGuard key, or undefined when the text is not one. */
export function parseWireGuardKey(text: unknown): Buffer | undefined {
  if (typeof text !== 'string' || !BASE64_KEY.test(text)) return undefined;
  const b = Buffer.from(text, 'base64');
  return b.length === KEY_BYTES ? b : undefined;
}

/** One WireGuard peer: another node. */
export interface WireGuardPeer {
  node: string;
  /** base64 */
  publicKey: string;
  /** `ip:port` */
  endpoint: string;
  allowedIPs: string[];
}

/** A Node whose annotation does not hold a key: skipped, with why. */
export interface SkippedPeer {
  node: string;
  value: string | undefined;
  reason: string;
}

/** What the peer computation needs of a Node. */
export interface WireGuardNodeFacts {
  name: string;
  nodeIP: string | undefined;
  podCIDR: string | undefined;
  /** The annotation's raw value (undefined when absent). */
  publicKey: string | undefined;
}

/** Reads the facts of a Node object. */
export function wireGuardNodeFacts(o: KubeObject): WireGuardNodeFacts {
  const f = nodeFacts(o);
  const annotations = (o.metadata as { annotations?: Record<string, string> }).annotations;
  const raw = annotations?.[WIREGUARD_PUBLIC_KEY_ANNOTATION];
  return { name: f.name, nodeIP: f.nodeIP, podCIDR: f.podCIDR, publicKey: raw };
}

/**
 * The peers of node `self`: every other Node with a node IP, a pod CIDR and a well-formed key, in
 * name order. A Node whose annotation is absent is not a peer yet (its agent has not published);
 * one whose annotation is malformed, or that names this node's own key, is reported as skipped.
 */
export function wireGuardPeersOf(
  nodes: readonly WireGuardNodeFacts[],
  self: { name: string; publicKey?: string },
  port: number,
): { peers: WireGuardPeer[]; skipped: SkippedPeer[] } {
  const peers: WireGuardPeer[] = [];
  const skipped: SkippedPeer[] = [];
  const seenKeys = new Map<string, string>();
  for (const n of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (n.name === self.name || !n.nodeIP || !n.podCIDR || n.publicKey === undefined) continue;
    const key = parseWireGuardKey(n.publicKey);
    if (!key) {
      skipped.push({ node: n.name, value: n.publicKey, reason: 'not a base64 32-byte WireGuard key' });
      continue;
    }
    const b64 = key.toString('base64');
    if (b64 === self.publicKey) {
      skipped.push({ node: n.name, value: n.publicKey, reason: "this node's own public key" });
      continue;
    }
    const holder = seenKeys.get(b64);
    if (holder !== undefined) {
      skipped.push({ node: n.name, value: n.publicKey, reason: `the same key as Node ${holder}` });
      continue;
    }
    let cidr: string;
    try {
      cidr = parseCidr(n.podCIDR).toString();
    } catch {
      continue; // not a CIDR; the route part ignores this Node too
    }
    seenKeys.set(b64, n.name);
    peers.push({ node: n.name, publicKey: b64, endpoint: `${n.nodeIP}:${port}`, allowedIPs: [cidr] });
  }
  return { peers, skipped };
}

const hex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');

/**
 * The UAPI `set=1` request that makes the device's peers `peers`, given the public keys it holds
 * now (`current`): peers no longer wanted are removed, the others set in place (a peer set again
 * keeps its session, so a Node update costs no handshake), each with a keepalive. Ends with the
 * blank line.
 */
export function uapiSetPeers(peers: readonly WireGuardPeer[], current: readonly string[]): string {
  const wanted = new Set(peers.map((p) => p.publicKey));
  const lines = ['set=1'];
  for (const k of current) if (!wanted.has(k)) lines.push(`public_key=${hex(k)}`, 'remove=true');
  for (const p of peers) {
    lines.push(`public_key=${hex(p.publicKey)}`, `endpoint=${p.endpoint}`, `persistent_keepalive_interval=${WIREGUARD_KEEPALIVE_S}`, 'replace_allowed_ips=true', ...p.allowedIPs.map((c) => `allowed_ip=${c}`));
  }
  return `${lines.join('\n')}\n\n`;
}

/** The UAPI request that sets the device's private key and listen port. */
export function uapiSetInterface(privateKey: string, port: number): string {
  return `set=1\nprivate_key=${hex(privateKey)}\nlisten_port=${port}\n\n`;
}

/** A peer as the device reports it (`get=1`). */
export interface DevicePeer {
  publicKey: string;
  endpoint?: string;
  allowedIPs: string[];
  /** Seconds since the epoch of the last completed handshake; 0 = none yet. */
  lastHandshakeSec: number;
  rxBytes: number;
  txBytes: number;
}

/** Parses a UAPI `get=1` answer (without checking errno; {@link uapiErrno} does). */
export function parseUapiGet(text: string): { listenPort?: number; peers: DevicePeer[] } {
  const peers: DevicePeer[] = [];
  let listenPort: number | undefined;
  let p: DevicePeer | undefined;
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const k = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (k === 'public_key') {
      p = { publicKey: Buffer.from(v, 'hex').toString('base64'), allowedIPs: [], lastHandshakeSec: 0, rxBytes: 0, txBytes: 0 };
      peers.push(p);
    } else if (k === 'listen_port' && !p) listenPort = Number(v);
    else if (p && k === 'endpoint') p.endpoint = v;
    else if (p && k === 'allowed_ip') p.allowedIPs.push(v);
    else if (p && k === 'last_handshake_time_sec') p.lastHandshakeSec = Number(v);
    else if (p && k === 'rx_bytes') p.rxBytes = Number(v);
    else if (p && k === 'tx_bytes') p.txBytes = Number(v);
  }
  return listenPort !== undefined ? { listenPort, peers } : { peers };
}

/** The errno of a UAPI answer (0 = success); undefined when the answer has none. */
export function uapiErrno(text: string): number | undefined {
  const m = /(?:^|\n)errno=(-?\d+)\n/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** A fresh private key, base64. */
export function generatePrivateKey(): string {
  const { privateKey } = generateKeyPairSync('x25519');
  const d = privateKey.export({ format: 'jwk' }).d;
  if (!d) throw new AgentError('WIREGUARD', 'X25519 key generation gave no private scalar', undefined, 'wireGuard.privateKey');
  return Buffer.from(d, 'base64url').toString('base64');
}

/** The public key of a base64 private key (X25519 clamps the scalar as WireGuard does). */
export function publicKeyOf(privateKey: string): string {
  const d = parseWireGuardKey(privateKey);
  if (!d) throw new AgentError('WIREGUARD', 'the private key is not a base64 32-byte key', '(redacted)', 'wireGuard.privateKey');
  const key = createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: d.toString('base64url'), x: '' }, format: 'jwk' });
  const x = createPublicKey(key).export({ format: 'jwk' }).x;
  if (!x) throw new AgentError('WIREGUARD', 'X25519 gave no public key', undefined, 'wireGuard.privateKey');
  return Buffer.from(x, 'base64url').toString('base64');
}

/**
 * The node's private key from `file`, made (and written durably, mode 0600) the first time, so a
 * restarted agent keeps its identity and its peers keep theirs.
 * @throws AgentError `WIREGUARD` when the file exists but holds no key.
 */
export function loadOrCreatePrivateKey(file: string): { privateKey: string; created: boolean } {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text !== undefined) {
    if (!parseWireGuardKey(text)) throw new AgentError('WIREGUARD', `${file} does not hold a base64 32-byte WireGuard private key`, file, 'wireGuard.privateKey');
    return { privateKey: text, created: false };
  }
  const privateKey = generatePrivateKey();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(file, `${privateKey}\n`, { mode: 0o600, fsync: true });
  return { privateKey, created: true };
}

/** Sends one UAPI request to the device's socket and returns the whole answer; throws on a non-zero errno. */
export function uapiRequest(socketPath: string, request: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(socketPath);
    let buf = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new AgentError('WIREGUARD', `no UAPI answer within ${timeoutMs} ms`, socketPath, 'wireGuard.uapi'));
    }, timeoutMs);
    const done = (err: Error | undefined): void => {
      clearTimeout(timer);
      sock.destroy();
      if (err) return reject(err);
      const errno = uapiErrno(buf);
      if (errno !== 0) reject(new AgentError('WIREGUARD', `UAPI ${request.split('\n', 1)[0]} failed with errno=${errno ?? '(none)'}`, buf.trim(), 'wireGuard.uapi'));
      else resolve(buf);
    };
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      buf += d;
      if (/(?:^|\n)errno=-?\d+\n\n$/.test(buf)) done(undefined);
    });
    sock.on('error', (e) => done(e));
    sock.on('end', () => done(undefined));
    sock.write(request);
  });
}
