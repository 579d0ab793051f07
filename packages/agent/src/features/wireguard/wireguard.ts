/**
 * WireGuard between nodes: keys (X25519, kept on disk), the public-key annotation on the Node,
 * the peers a node's Nodes give, and the UAPI text protocol wireguard-go (and the kernel's
 * `wg` tool) speak. Pure except for the key file and the UAPI socket at the end.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { KubeObject } from '@switchyard/kube';
import { AgentError } from '../../errors';
import { nodeFacts } from '../routes/node-routes';

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
  /** Dual-stack and IPv6-only Nodes: the IPv6 entry of spec.podCIDRs. */
  podCIDRv6?: string;
  /** The IPv6 InternalIP (canonical): the endpoint of a peer of an IPv6-only node. */
  nodeIPv6?: string;
  /** The annotation's raw value (undefined when absent). */
  publicKey: string | undefined;
}

/** Reads the facts of a Node object. */
export function wireGuardNodeFacts(o: KubeObject): WireGuardNodeFacts {
  const f = nodeFacts(o);
  const annotations = (o.metadata as { annotations?: Record<string, string> }).annotations;
  const raw = annotations?.[WIREGUARD_PUBLIC_KEY_ANNOTATION];
  return { name: f.name, nodeIP: f.nodeIP, podCIDR: f.podCIDR, ...(f.podCIDRv6 !== undefined ? { podCIDRv6: f.podCIDRv6 } : {}), ...(f.nodeIPv6 !== undefined ? { nodeIPv6: f.nodeIPv6 } : {}), publicKey: raw };
}

/**
 * The pod families of this node: `ipv4` (an IPv4 pod CIDR alone), `dual` (IPv4 and IPv6) or `ipv6`
 * (an IPv6 pod CIDR alone). It decides a peer's allowed IPs (the pod CIDRs of the families this
 * node has) and its endpoint's family: the node's first family, IPv4 unless the node is IPv6-only,
 * so a dual-stack node keeps one IPv4 endpoint per peer and carries both families through it.
 */
export type WireGuardFamilies = 'ipv4' | 'dual' | 'ipv6';

/** The canonical text of a CIDR of the given family; undefined for none or text that is no such CIDR. */
function cidrOf(text: string | undefined, family: 4 | 6): string | undefined {
  if (text === undefined) return undefined;
  try {
    const c = parseCidr(text);
    return c.family === family ? c.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The endpoint and allowed IPs of Node `n` as a peer of a node of `families`; undefined while it
 * lacks the pod CIDR or node address of this node's first family (not a peer, as before it publishes).
 */
function peerPath(n: WireGuardNodeFacts, families: WireGuardFamilies, port: number): { endpoint: string; allowedIPs: string[] } | undefined {
  const v4 = families === 'ipv6' ? undefined : cidrOf(n.podCIDR, 4);
  const v6 = families === 'ipv4' ? undefined : cidrOf(n.podCIDRv6, 6);
  if (families === 'ipv6') return v6 !== undefined && n.nodeIPv6 !== undefined ? { endpoint: `[${n.nodeIPv6}]:${port}`, allowedIPs: [v6] } : undefined;
  if (v4 === undefined || !n.nodeIP) return undefined;
  return { endpoint: `${n.nodeIP}:${port}`, allowedIPs: v6 !== undefined ? [v4, v6] : [v4] };
}

/**
 * The peers of node `self`: every other Node with a node IP, a pod CIDR and a well-formed key, in
 * name order. A Node whose annotation is absent is not a peer yet (its agent has not published);
 * one whose annotation is malformed, or that names this node's own key, is reported as skipped.
 * `families` (default `ipv4`) is this node's: a dual-stack node's peers carry their IPv6 pod CIDR
 * too (endpoint still the IPv4 node address), an IPv6-only node's peers are reached at their IPv6
 * node address (`[addr]:port`) with their IPv6 pod CIDR alone.
 */
export function wireGuardPeersOf(
  nodes: readonly WireGuardNodeFacts[],
  self: { name: string; publicKey?: string },
  port: number,
  families: WireGuardFamilies = 'ipv4',
): { peers: WireGuardPeer[]; skipped: SkippedPeer[] } {
  const peers: WireGuardPeer[] = [];
  const skipped: SkippedPeer[] = [];
  const seenKeys = new Map<string, string>();
  for (const n of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (n.name === self.name || n.publicKey === undefined) continue;
    const path = peerPath(n, families, port);
    if (path === undefined) continue;
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
    seenKeys.set(b64, n.name);
    peers.push({ node: n.name, publicKey: b64, ...path });
  }
  return { peers, skipped };
}

const hex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');

/** Whether the device already holds `p` exactly as wanted (key, endpoint, allowed IPs, keepalive). */
function peerMatches(p: WireGuardPeer, d: DevicePeer | undefined): boolean {
  if (!d || d.endpoint !== p.endpoint || d.persistentKeepaliveS !== WIREGUARD_KEEPALIVE_S) return false;
  const a = [...d.allowedIPs].sort();
  const b = [...p.allowedIPs].sort();
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/**
 * The UAPI `set=1` request that makes the device's peers `peers`, given the peers it holds now
 * (`current`, from `get=1`): peers no longer wanted are removed, peers that differ are set in place
 * (a peer set again keeps its session, so a Node update costs no handshake), each with a
 * keepalive; peers already as wanted are left alone (an adopting agent touches nothing that is
 * right). Ends with the blank line; undefined when there is nothing to change.
 */
export function uapiSetPeers(peers: readonly WireGuardPeer[], current: readonly DevicePeer[]): string | undefined {
  const wanted = new Set(peers.map((p) => p.publicKey));
  const held = new Map(current.map((d) => [d.publicKey, d]));
  const lines = ['set=1'];
  for (const d of current) if (!wanted.has(d.publicKey)) lines.push(`public_key=${hex(d.publicKey)}`, 'remove=true');
  for (const p of peers) {
    if (peerMatches(p, held.get(p.publicKey))) continue;
    lines.push(`public_key=${hex(p.publicKey)}`, `endpoint=${p.endpoint}`, `persistent_keepalive_interval=${WIREGUARD_KEEPALIVE_S}`, 'replace_allowed_ips=true', ...p.allowedIPs.map((c) => `allowed_ip=${c}`));
  }
  return lines.length > 1 ? `${lines.join('\n')}\n\n` : undefined;
}

/**
 * The UAPI request that gives the device `privateKey` and `port`, leaving out what it already has
 * (`device`, from `get=1`): setting the same listen port rebinds the socket, and a new private key
 * expires every session. Undefined when the device is already right.
 */
export function uapiSetInterface(privateKey: string, port: number, device?: { privateKey?: string; listenPort?: number }): string | undefined {
  const lines = ['set=1'];
  if (device?.privateKey !== privateKey) lines.push(`private_key=${hex(privateKey)}`);
  if (device?.listenPort !== port) lines.push(`listen_port=${port}`);
  return lines.length > 1 ? `${lines.join('\n')}\n\n` : undefined;
}

/** A peer as the device reports it (`get=1`). */
export interface DevicePeer {
  publicKey: string;
  endpoint?: string;
  allowedIPs: string[];
  /** Seconds since the epoch of the last completed handshake; 0 = none yet. */
  lastHandshakeSec: number;
  /** Seconds; 0 = off. */
  persistentKeepaliveS: number;
  rxBytes: number;
  txBytes: number;
}

/** A device as `get=1` reports it. */
export interface DeviceState {
  /** base64 */
  privateKey?: string;
  listenPort?: number;
  peers: DevicePeer[];
}

/** Parses a UAPI `get=1` answer (without checking errno; {@link uapiErrno} does). */
export function parseUapiGet(text: string): DeviceState {
  const peers: DevicePeer[] = [];
  let listenPort: number | undefined;
  let privateKey: string | undefined;
  let p: DevicePeer | undefined;
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const k = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (k === 'public_key') {
      p = { publicKey: Buffer.from(v, 'hex').toString('base64'), allowedIPs: [], lastHandshakeSec: 0, persistentKeepaliveS: 0, rxBytes: 0, txBytes: 0 };
      peers.push(p);
    } else if (k === 'listen_port' && !p) listenPort = Number(v);
    else if (k === 'private_key' && !p) privateKey = Buffer.from(v, 'hex').toString('base64');
    else if (p && k === 'persistent_keepalive_interval') p.persistentKeepaliveS = Number(v);
    else if (p && k === 'endpoint') p.endpoint = v;
    else if (p && k === 'allowed_ip') p.allowedIPs.push(v);
    else if (p && k === 'last_handshake_time_sec') p.lastHandshakeSec = Number(v);
    else if (p && k === 'rx_bytes') p.rxBytes = Number(v);
    else if (p && k === 'tx_bytes') p.txBytes = Number(v);
  }
  return { ...(privateKey !== undefined ? { privateKey } : {}), ...(listenPort !== undefined ? { listenPort } : {}), peers };
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

/** Writes `privateKey` to `file` durably (fsync, rename, directory fsync), mode 0600, dated `writtenAtMs` (the key's age is the file's). */
export function writePrivateKey(file: string, privateKey: string, writtenAtMs: number): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileDurableSync(file, `${privateKey}\n`, { mode: 0o600 });
  const t = new Date(writtenAtMs);
  utimesSync(file, t, t);
}

/** The key file as the agent finds it. */
export type KeyFileState = { kind: 'missing' } | { kind: 'invalid' } | { kind: 'key'; privateKey: string; writtenAtMs: number };

/** Reads the key file: its key and when it was written (mtime), or that it is missing or holds no key. */
export function readKeyFile(file: string): KeyFileState {
  let text: string;
  let writtenAtMs: number;
  try {
    text = readFileSync(file, 'utf8').trim();
    writtenAtMs = Math.round(statSync(file).mtimeMs); // ns-based float: 123.999 for 124
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  return parseWireGuardKey(text) ? { kind: 'key', privateKey: text, writtenAtMs } : { kind: 'invalid' };
}

/**
 * The node's private key from `file`, made (and written durably, mode 0600, dated `nowMs`) the
 * first time, so a restarted agent keeps its identity and its peers keep theirs.
 * @throws AgentError `WIREGUARD` when the file exists but holds no key.
 */
export function loadOrCreatePrivateKey(file: string, nowMs = Date.now()): { privateKey: string; created: boolean; writtenAtMs: number } {
  const found = readKeyFile(file);
  if (found.kind === 'invalid') throw new AgentError('WIREGUARD', `${file} does not hold a base64 32-byte WireGuard private key`, file, 'wireGuard.privateKey');
  if (found.kind === 'key') return { privateKey: found.privateKey, created: false, writtenAtMs: found.writtenAtMs };
  const privateKey = generatePrivateKey();
  writePrivateKey(file, privateKey, nowMs);
  return { privateKey, created: true, writtenAtMs: nowMs };
}

/** What the key check decided: keep the key (and when to look again), or change it, and why. */
export type KeyRotationDecision =
  | { action: 'keep'; nextCheckInMs?: number }
  | { action: 'generate'; reason: string }
  | { action: 'use'; privateKey: string; reason: string }
  | { action: 'refuse'; reason: string };

/**
 * Whether the node's key changes now. The triggers: the key file was removed (an operator asking
 * for a new key), it holds another valid key (an operator's key, used as is), or the key is
 * `periodMs` old or older (its file's time on the agent's clock; no period = never by age). A file
 * holding something else is refused: the device keeps its key, and the file is left for the
 * operator to fix.
 */
export function keyRotationDecision(o: { file: KeyFileState; current: string; nowMs: number; periodMs?: number }): KeyRotationDecision {
  const { file, current, nowMs, periodMs } = o;
  if (file.kind === 'missing') return { action: 'generate', reason: 'the key file was removed' };
  if (file.kind === 'invalid') return { action: 'refuse', reason: 'the key file does not hold a base64 32-byte WireGuard private key' };
  if (file.privateKey !== current) return { action: 'use', privateKey: file.privateKey, reason: 'the key file holds another key' };
  if (periodMs === undefined) return { action: 'keep' };
  const age = nowMs - file.writtenAtMs;
  if (age >= periodMs) return { action: 'generate', reason: `the key is ${Math.round(age / 1000)} s old, the rotation period ${Math.round(periodMs / 1000)} s` };
  return { action: 'keep', nextCheckInMs: periodMs - age };
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
