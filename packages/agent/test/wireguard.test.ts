import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAgentConfig } from '@switchyard/apis';
import type { KubeObject } from '@switchyard/kube';
import { hostRoutesFor } from '../src/features/routes/node-routes';
import { agentOptionsFromConfig, resolveAgentOptions } from '../src/options';
import {
  WIREGUARD_PUBLIC_KEY_ANNOTATION,
  generatePrivateKey,
  keyRotationDecision,
  loadOrCreatePrivateKey,
  readKeyFile,
  writePrivateKey,
  parseUapiGet,
  parseWireGuardKey,
  publicKeyOf,
  uapiErrno,
  uapiSetInterface,
  uapiSetPeers,
  wireGuardNodeFacts,
  wireGuardPeersOf,
  type DevicePeer,
  type WireGuardNodeFacts,
} from '../src/features/wireguard/wireguard';
import { ManualClock } from '@switchyard/runtime/testing';

const KEY_A = publicKeyOf(generatePrivateKey());
const KEY_B = publicKeyOf(generatePrivateKey());
const facts = (name: string, publicKey: string | undefined, n = Number(name.replace(/\D/g, ''))): WireGuardNodeFacts => ({ name, nodeIP: `192.168.77.${n}`, podCIDR: `10.10.${n}.0/24`, publicKey });

describe('parseWireGuardKey', () => {
  test('takes a base64 32-byte key and refuses anything else', () => {
    expect(parseWireGuardKey(KEY_A)).toHaveLength(32);
    for (const bad of ['', 'not-a-key', KEY_A.slice(0, -2), `${KEY_A}A`, Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64'), 42, undefined])
      expect(parseWireGuardKey(bad)).toBeUndefined();
  });
});

describe('keys', () => {
  test('the public key of a private key is the one wg pubkey derives', () => {
    const priv = generatePrivateKey();
    // wireguard-tools (scripts/apt-packages.txt) as the independent reference.
    const wg = execFileSync('wg', ['pubkey'], { input: `${priv}\n`, encoding: 'utf8' }).trim();
    expect(publicKeyOf(priv)).toBe(wg);
    expect(parseWireGuardKey(publicKeyOf(priv))).toHaveLength(32);
  });

  test('the private key is made once, mode 0600, and read back on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-wg-key-'));
    try {
      const file = join(dir, 'wireguard', 'private.key');
      const first = loadOrCreatePrivateKey(file);
      expect(first.created).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const second = loadOrCreatePrivateKey(file);
      expect(second).toEqual({ privateKey: first.privateKey, created: false, writtenAtMs: first.writtenAtMs });
      expect(readFileSync(file, 'utf8').trim()).toBe(first.privateKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a key file holding something else is an error naming the file, not a new key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-wg-key-'));
    try {
      const file = join(dir, 'private.key');
      writeFileSync(file, 'garbage\n');
      expect(() => loadOrCreatePrivateKey(file)).toThrow(file);
      expect(readFileSync(file, 'utf8')).toBe('garbage\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('wireGuardNodeFacts', () => {
  test('reads the key annotation with the pod CIDR and InternalIP', () => {
    const o: KubeObject = {
      metadata: { name: 'n2', annotations: { [WIREGUARD_PUBLIC_KEY_ANNOTATION]: KEY_A } },
      spec: { podCIDR: '10.10.2.0/24' },
      status: { addresses: [{ type: 'InternalIP', address: '192.168.77.2' }] },
    };
    expect(wireGuardNodeFacts(o)).toEqual({ name: 'n2', nodeIP: '192.168.77.2', podCIDR: '10.10.2.0/24', publicKey: KEY_A });
    expect(wireGuardNodeFacts({ metadata: { name: 'n3' } }).publicKey).toBeUndefined();
    // Dual-stack: the IPv6 pod CIDR and the IPv6 InternalIP (canonical) too.
    const d = { ...o, spec: { podCIDRs: ['10.10.2.0/24', 'fd00:10:2::/64'] }, status: { addresses: [{ type: 'InternalIP', address: '192.168.77.2' }, { type: 'InternalIP', address: 'FD00:77:0::2' }] } };
    expect(wireGuardNodeFacts(d)).toEqual({ name: 'n2', nodeIP: '192.168.77.2', podCIDR: '10.10.2.0/24', podCIDRv6: 'fd00:10:2::/64', nodeIPv6: 'fd00:77::2', publicKey: KEY_A });
  });
});

describe('wireGuardPeersOf', () => {
  test('every other Node with a key becomes a peer: endpoint node IP and port, allowed-ips its pod CIDR, in name order', () => {
    const { peers, skipped } = wireGuardPeersOf([facts('n3', KEY_B), facts('n1', KEY_A), facts('n2', KEY_A)], { name: 'n1' }, 51820);
    expect(skipped).toEqual([]);
    expect(peers).toEqual([
      { node: 'n2', publicKey: KEY_A, endpoint: '192.168.77.2:51820', allowedIPs: ['10.10.2.0/24'] },
      { node: 'n3', publicKey: KEY_B, endpoint: '192.168.77.3:51820', allowedIPs: ['10.10.3.0/24'] },
    ]);
  });

  test('a malformed annotation is skipped with the node and the value; the other Nodes stay peers', () => {
    const { peers, skipped } = wireGuardPeersOf([facts('n2', 'not-a-key'), facts('n3', KEY_B)], { name: 'n1' }, 51820);
    expect(peers.map((p) => p.node)).toEqual(['n3']);
    expect(skipped).toEqual([{ node: 'n2', value: 'not-a-key', reason: expect.stringContaining('not a base64 32-byte') as string }]);
  });

  test('a Node without the annotation yet, an address or a pod CIDR is not a peer and not a warning', () => {
    const { peers, skipped } = wireGuardPeersOf([facts('n2', undefined), { ...facts('n3', KEY_A), nodeIP: undefined }, { ...facts('n4', KEY_B), podCIDR: undefined }], { name: 'n1' }, 51820);
    expect({ peers, skipped }).toEqual({ peers: [], skipped: [] });
  });

  // node i: 192.168.77.<i> and fd00:77::<i>, pod CIDRs 10.10.<i>.0/24 and fd00:10:<i>::/64.
  const dual = (name: string, publicKey: string | undefined): WireGuardNodeFacts => {
    const n = Number(name.replace(/\D/g, ''));
    return { ...facts(name, publicKey), podCIDRv6: `fd00:10:${n}::/64`, nodeIPv6: `fd00:77::${n}` };
  };

  test('dual-stack: each peer allows its IPv4 and IPv6 pod CIDRs and is reached at its IPv4 node address', () => {
    const { peers, skipped } = wireGuardPeersOf([dual('n2', KEY_A), dual('n3', KEY_B), facts('n4', publicKeyOf(generatePrivateKey()))], { name: 'n1' }, 51820, 'dual');
    expect(skipped).toEqual([]);
    expect(peers.map(({ node, endpoint, allowedIPs }) => ({ node, endpoint, allowedIPs }))).toEqual([
      { node: 'n2', endpoint: '192.168.77.2:51820', allowedIPs: ['10.10.2.0/24', 'fd00:10:2::/64'] },
      { node: 'n3', endpoint: '192.168.77.3:51820', allowedIPs: ['10.10.3.0/24', 'fd00:10:3::/64'] },
      // An IPv4-only peer of a dual-stack node: its IPv4 pod CIDR alone.
      { node: 'n4', endpoint: '192.168.77.4:51820', allowedIPs: ['10.10.4.0/24'] },
    ]);
    // An IPv4-only node leaves the peers' IPv6 pod CIDRs out, as before.
    expect(wireGuardPeersOf([dual('n2', KEY_A)], { name: 'n1' }, 51820).peers[0]!.allowedIPs).toEqual(['10.10.2.0/24']);
  });

  test('IPv6-only: each peer reached at [its IPv6 node address]:port, allowing its IPv6 pod CIDR alone; a Node without an IPv6 InternalIP or IPv6 pod CIDR is no peer yet', () => {
    const only6 = (name: string, key: string): WireGuardNodeFacts => {
      const { podCIDR: _c, nodeIP: _i, ...rest } = dual(name, key);
      return { ...rest, podCIDR: undefined, nodeIP: undefined };
    };
    const { nodeIPv6: _a, ...noAddr6 } = dual('n4', KEY_B);
    const { podCIDRv6: _b, ...noCidr6 } = dual('n5', KEY_B);
    const { peers, skipped } = wireGuardPeersOf([only6('n2', KEY_A), dual('n3', KEY_B), noAddr6, noCidr6], { name: 'n1' }, 51820, 'ipv6');
    expect(skipped).toEqual([]);
    expect(peers.map(({ node, endpoint, allowedIPs }) => ({ node, endpoint, allowedIPs }))).toEqual([
      { node: 'n2', endpoint: '[fd00:77::2]:51820', allowedIPs: ['fd00:10:2::/64'] },
      { node: 'n3', endpoint: '[fd00:77::3]:51820', allowedIPs: ['fd00:10:3::/64'] },
    ]);
  });

  test("a Node claiming this node's key, or a key another Node holds, is skipped", () => {
    const { peers, skipped } = wireGuardPeersOf([facts('n2', KEY_A), facts('n3', KEY_B), facts('n4', KEY_B)], { name: 'n1', publicKey: KEY_A }, 51820);
    expect(peers.map((p) => p.node)).toEqual(['n3']);
    expect(skipped.map((s) => [s.node, s.reason])).toEqual([['n2', "this node's own public key"], ['n4', 'the same key as Node n3']]);
  });
});

describe('UAPI text', () => {
  const hex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');

  const device = (publicKey: string, over: Partial<DevicePeer> = {}): DevicePeer => ({ publicKey, allowedIPs: [], lastHandshakeSec: 0, persistentKeepaliveS: 0, rxBytes: 0, txBytes: 0, ...over });
  const peerA = { node: 'n2', publicKey: KEY_A, endpoint: '192.168.77.2:51820', allowedIPs: ['10.10.2.0/24'] };

  test('set peers removes the ones no longer wanted and sets the others in place with their allowed IPs', () => {
    const req = uapiSetPeers([peerA], [device(KEY_A), device(KEY_B)]);
    expect(req).toBe(
      `set=1\npublic_key=${hex(KEY_B)}\nremove=true\npublic_key=${hex(KEY_A)}\nendpoint=192.168.77.2:51820\npersistent_keepalive_interval=25\nreplace_allowed_ips=true\nallowed_ip=10.10.2.0/24\n\n`,
    );
    expect(req).not.toContain('replace_peers');
  });

  test('set peers leaves a peer the device already holds as wanted alone, and asks nothing when all are', () => {
    const held = device(KEY_A, { endpoint: '192.168.77.2:51820', allowedIPs: ['10.10.2.0/24'], persistentKeepaliveS: 25, lastHandshakeSec: 9 });
    expect(uapiSetPeers([peerA], [held])).toBeUndefined();
    // Another endpoint, allowed IP or keepalive is set again; a new key is a new peer.
    expect(uapiSetPeers([peerA], [{ ...held, endpoint: '192.168.77.9:51820' }])).toContain(`public_key=${hex(KEY_A)}\nendpoint=192.168.77.2:51820`);
    expect(uapiSetPeers([peerA], [{ ...held, allowedIPs: ['10.10.9.0/24'] }])).toContain('allowed_ip=10.10.2.0/24');
    expect(uapiSetPeers([peerA], [{ ...held, persistentKeepaliveS: 0 }])).toContain('persistent_keepalive_interval=25');
    expect(uapiSetPeers([{ ...peerA, publicKey: KEY_B }], [held])).toBe(
      `set=1\npublic_key=${hex(KEY_A)}\nremove=true\npublic_key=${hex(KEY_B)}\nendpoint=192.168.77.2:51820\npersistent_keepalive_interval=25\nreplace_allowed_ips=true\nallowed_ip=10.10.2.0/24\n\n`,
    );
  });

  test('set interface carries the private key in hex and the port, only where the device differs', () => {
    const priv = generatePrivateKey();
    expect(uapiSetInterface(priv, 51821)).toBe(`set=1\nprivate_key=${hex(priv)}\nlisten_port=51821\n\n`);
    expect(uapiSetInterface(priv, 51821, { privateKey: priv, listenPort: 51821 })).toBeUndefined();
    // A rotation: the same port is not set again (that would rebind the device's socket).
    expect(uapiSetInterface(priv, 51821, { listenPort: 51821 })).toBe(`set=1\nprivate_key=${hex(priv)}\n\n`);
    expect(uapiSetInterface(priv, 51821, { privateKey: priv, listenPort: 51820 })).toBe('set=1\nlisten_port=51821\n\n');
  });

  test('a get answer gives the key, the port and each peer with its endpoint, allowed IPs, keepalive, handshake and counters', () => {
    const priv = generatePrivateKey();
    const text = `private_key=${hex(priv)}\nlisten_port=51820\npublic_key=${hex(KEY_A)}\nendpoint=192.168.77.2:51820\nlast_handshake_time_sec=17\nrx_bytes=5\ntx_bytes=6\npersistent_keepalive_interval=25\nallowed_ip=10.10.2.0/24\npublic_key=${hex(KEY_B)}\nallowed_ip=10.10.3.0/24\nerrno=0\n\n`;
    expect(parseUapiGet(text)).toEqual({
      privateKey: priv,
      listenPort: 51820,
      peers: [
        { publicKey: KEY_A, endpoint: '192.168.77.2:51820', allowedIPs: ['10.10.2.0/24'], lastHandshakeSec: 17, persistentKeepaliveS: 25, rxBytes: 5, txBytes: 6 },
        { publicKey: KEY_B, allowedIPs: ['10.10.3.0/24'], lastHandshakeSec: 0, persistentKeepaliveS: 0, rxBytes: 0, txBytes: 0 },
      ],
    });
    expect(uapiErrno(text)).toBe(0);
    expect(uapiErrno('errno=-22\n\n')).toBe(-22);
    expect(uapiErrno('listen_port=1\n')).toBeUndefined();
  });
});

describe('key rotation decision', () => {
  const KEY = generatePrivateKey();
  const DAY = 86_400_000;

  test('a key younger than the period is kept, with the next check when it comes of age; at the period it is replaced', () => {
    const clock = new ManualClock();
    const file = { kind: 'key' as const, privateKey: KEY, writtenAtMs: clock.now() };
    clock.advance(DAY);
    expect(keyRotationDecision({ file, current: KEY, nowMs: clock.now(), periodMs: 7 * DAY })).toEqual({ action: 'keep', nextCheckInMs: 6 * DAY });
    clock.advance(6 * DAY - 1);
    expect(keyRotationDecision({ file, current: KEY, nowMs: clock.now(), periodMs: 7 * DAY })).toEqual({ action: 'keep', nextCheckInMs: 1 });
    clock.advance(1);
    expect(keyRotationDecision({ file, current: KEY, nowMs: clock.now(), periodMs: 7 * DAY })).toEqual({ action: 'generate', reason: 'the key is 604800 s old, the rotation period 604800 s' });
  });

  test('without a period the key is kept however old; removing the file asks for a new one', () => {
    const clock = new ManualClock();
    const file = { kind: 'key' as const, privateKey: KEY, writtenAtMs: clock.now() };
    clock.advance(3650 * DAY);
    expect(keyRotationDecision({ file, current: KEY, nowMs: clock.now() })).toEqual({ action: 'keep' });
    expect(keyRotationDecision({ file: { kind: 'missing' }, current: KEY, nowMs: clock.now() })).toEqual({ action: 'generate', reason: 'the key file was removed' });
  });

  test("another valid key in the file is used as it is; a file holding something else is refused and the key kept", () => {
    const other = generatePrivateKey();
    expect(keyRotationDecision({ file: { kind: 'key', privateKey: other, writtenAtMs: 0 }, current: KEY, nowMs: 1, periodMs: DAY })).toEqual({ action: 'use', privateKey: other, reason: 'the key file holds another key' });
    expect(keyRotationDecision({ file: { kind: 'invalid' }, current: KEY, nowMs: 1, periodMs: DAY })).toEqual({ action: 'refuse', reason: 'the key file does not hold a base64 32-byte WireGuard private key' });
  });

  test('a key written on the agent clock is dated by it: its file time is the age the decision reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-wg-key-'));
    try {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const file = join(dir, 'wireguard', 'private.key');
      const made = loadOrCreatePrivateKey(file, clock.now());
      expect(made.writtenAtMs).toBe(clock.now());
      expect(readKeyFile(file)).toEqual({ kind: 'key', privateKey: made.privateKey, writtenAtMs: clock.now() });
      clock.advance(DAY);
      expect(keyRotationDecision({ file: readKeyFile(file), current: made.privateKey, nowMs: clock.now(), periodMs: DAY }).action).toBe('generate');
      const next = generatePrivateKey();
      writePrivateKey(file, next, clock.now());
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(keyRotationDecision({ file: readKeyFile(file), current: next, nowMs: clock.now(), periodMs: DAY })).toEqual({ action: 'keep', nextCheckInMs: DAY });
      rmSync(file);
      expect(readKeyFile(file)).toEqual({ kind: 'missing' });
      writeFileSync(file, 'garbage\n');
      expect(readKeyFile(file)).toEqual({ kind: 'invalid' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('routes and options in wireGuard mode', () => {
  test('remote pod CIDRs are routed onto the WireGuard device in every routed mode', () => {
    const remote = [{ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }];
    for (const mode of ['encap', 'noEncap', 'hybrid'] as const)
      expect(hostRoutesFor(mode, remote, { gatewayName: 'gw0', transportDev: 'eth0', nodeIP: '192.168.77.1', transportPrefix: 24, wireGuardDev: 'switchyard-wg0' })).toEqual([{ dst: '10.10.2.0/24', dev: 'switchyard-wg0' }]);
  });

  test('wireGuard needs the Kubernetes API (keys travel on Nodes) and a routed traffic mode', () => {
    const base = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ovsdbRemote: 'unix:/x', dataDir: '/tmp/x', trafficEncryptionMode: 'wireGuard' as const };
    expect(() => resolveAgentOptions(base)).toThrow('needs the Kubernetes API');
    const kube = { request: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
    expect(() => resolveAgentOptions({ ...base, kube, trafficMode: 'networkPolicyOnly' })).toThrow('networkPolicyOnly');
    expect(resolveAgentOptions({ ...base, kube })).toMatchObject({ trafficEncryptionMode: 'wireGuard', wireGuardPort: 51820 });
    expect(resolveAgentOptions({ ...base, kube, wireGuardKeyRotationMs: 3_600_000 }).wireGuardKeyRotationMs).toBe(3_600_000);
    expect(() => resolveAgentOptions({ ...base, kube, wireGuardKeyRotationMs: 5 })).toThrow('wireGuardKeyRotationMs must be a number of milliseconds of at least 1000, not 5');
  });

  test('antrea-agent.conf trafficEncryptionMode and wireGuard.port reach the options', () => {
    const node = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', dataDir: '/tmp/x' };
    const wg = agentOptionsFromConfig(parseAgentConfig({ trafficEncryptionMode: 'wireGuard', wireGuard: { port: 51821 } }).config, node);
    expect(wg).toMatchObject({ trafficEncryptionMode: 'wireGuard', wireGuardPort: 51821 });
    expect(agentOptionsFromConfig(parseAgentConfig({}).config, node)).toMatchObject({ trafficEncryptionMode: 'none', wireGuardPort: 51820 });
  });
});
