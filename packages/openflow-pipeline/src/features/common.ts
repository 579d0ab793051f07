/** Small builders shared by the feature modules. */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { Cidr, Ip } from '@switchyard/ipam/cidr';
import type { Feature } from '../feature';
import { PipelineError } from '../errors';
import type { NodeConfig } from '../state';
import { ETH_ARP, ETH_IP, ETH_IPV6, GLOBAL_VIRTUAL_MAC, PROTO_ICMPV6, SwapField } from '../fields';

export const IP: Match = { ethType: ETH_IP };
export const IPV6: Match = { ethType: ETH_IPV6 };
export const ICMPV6: Match = { ethType: ETH_IPV6, ipProto: PROTO_ICMPV6 };
export const ARP: Match = { ethType: ETH_ARP };

/** IPv6 text (an address, or a CIDR): it has a colon; IPv4 text never does. */
export const isIpv6 = (text: string): boolean => text.includes(':');

/** An IPv6 address in the codec's canonical (RFC 5952) text; `path` names the input in the error. */
export function ipv6Addr(ip: string, path: string): string {
  try {
    const a = Ip.parse(ip);
    if (a.family === 6) return a.toString();
  } catch {
    // reported below, with the field
  }
  throw new PipelineError('INVALID_INPUT', `not an IPv6 address: ${ip}`, ip, path);
}

/** An IPv6 CIDR as a match value (masked, plain for /128); `path` names the input in the error. */
export function ipv6Net(cidr: string, path: string): string | { value: string; mask: string } {
  let c: Cidr;
  try {
    c = Cidr.parse(cidr.includes('/') ? cidr : `${cidr}/128`);
  } catch {
    throw new PipelineError('INVALID_INPUT', `not an IPv6 CIDR: ${cidr}`, cidr, path);
  }
  if (c.family !== 6) throw new PipelineError('INVALID_INPUT', `not an IPv6 CIDR: ${cidr}`, cidr, path);
  if (c.prefix === 128) return c.first.toString();
  const mask = new Ip(6, ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - c.prefix)) - 1n)).toString();
  return { value: c.first.toString(), mask };
}

/**
 * The node has IPv6 (dual-stack or IPv6-only): a v6 pod CIDR and gateway address, checked
 * together; a node without a gateway IPv4 address must have them (an IPv6-only node).
 */
export function hasIpv6(cfg: NodeConfig): boolean {
  const cidr = cfg.podCIDRv6 !== undefined;
  const gw = cfg.gateway.ipv6 !== undefined;
  if (cidr !== gw) {
    const [path, other] = cidr ? ['config.gateway.ipv6', 'config.podCIDRv6'] : ['config.podCIDRv6', 'config.gateway.ipv6'];
    throw new PipelineError('INVALID_INPUT', `${path} is required with ${other}`, undefined, path);
  }
  if (!cidr && cfg.gateway.ip === undefined) throw new PipelineError('INVALID_INPUT', 'config.gateway.ip is required without config.podCIDRv6 (a node with no IPv6 has IPv4)', undefined, 'config.gateway.ip');
  return cidr;
}

export const goto = (table: number): Action => ({ type: 'gotoTable', table });
export const resubmit = (table: number): Action => ({ type: 'resubmit', table });
export const setEthSrc = (mac: string): Action => ({ type: 'setField', field: 'ethSrc', value: mac });
export const setEthDst = (mac: string): Action => ({ type: 'setField', field: 'ethDst', value: mac });
/**
 * The tunnel destination of a flow-based tunnel port: `tun_dst` (NXM_NX_TUN_IPV4_DST) for an IPv4
 * peer, `tun_ipv6_dst` (NXM_NX_TUN_IPV6_DST) for a peer on an IPv6 underlay (OVS then sends the
 * tunnel over IPv6, as Antrea does for an IPv6 peer transport address).
 */
export const setTunDst = (ip: string, path = 'nodeIP'): Action =>
  isIpv6(ip) ? { type: 'setField', field: 'tunIpv6Dst', value: ipv6Addr(ip, path) } : { type: 'setField', field: 'tunIpv4Dst', value: ip };

/** Builds a flow. */
export function flow(table: number, priority: number, match: Match, actions: Action[], cookie: bigint): Flow {
  return { table, priority, cookie, match, actions };
}

/** Splits `a.b.c.d/len` into a masked IPv4 match value (plain for /32). */
export function ipv4Net(cidr: string): string | { value: string; mask: string } {
  const [addr, lenText] = cidr.split('/');
  const len = lenText === undefined ? 32 : Number(lenText);
  if (len === 32) return addr!;
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return { value: addr!, mask: [24, 16, 8, 0].map((s) => (mask >>> s) & 0xff).join('.') };
}

/** IPv4 text to a 32-bit number. */
export function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0) >>> 0;
}

/** The ARP reply built in place (move/set), answering `tpa` with `mac` (the global virtual MAC by default). */
export function arpReplyActions(tpa?: string, mac: string = GLOBAL_VIRTUAL_MAC): Action[] {
  const acts: Action[] = [
    { type: 'copyField', src: { field: 'ethSrc' }, dst: { field: 'ethDst' } },
    setEthSrc(mac),
    { type: 'setField', field: 'arpOp', value: 2 },
    { type: 'copyField', src: { field: 'arpSha' }, dst: { field: 'arpTha' } },
    { type: 'setField', field: 'arpSha', value: mac },
  ];
  if (tpa) {
    acts.push({ type: 'copyField', src: { field: 'arpSpa' }, dst: { field: 'arpTpa' } }, { type: 'setField', field: 'arpSpa', value: tpa });
  } else {
    // Answer any address: swap spa/tpa through SwapField.
    acts.push(
      { type: 'copyField', src: { field: 'arpTpa' }, dst: SwapField.ref() },
      { type: 'copyField', src: { field: 'arpSpa' }, dst: { field: 'arpTpa' } },
      { type: 'copyField', src: SwapField.ref(), dst: { field: 'arpSpa' } },
    );
  }
  acts.push({ type: 'output', port: 'IN_PORT' });
  return acts;
}

/**
 * The two forms of a feature that has options: `build(optionsOf)` makes it. The factory fills the
 * caller's options (`fill`) and fixes them, as the feature's `config`; the deprecated constant
 * reads them from NodeConfig's switches (`legacy`) whenever it computes.
 */
export function withOptions<O extends object, F extends Feature>(
  build: (optionsOf: (cfg: NodeConfig) => O) => F,
  fill: (opts: O) => O,
  legacy: (cfg: NodeConfig) => O,
): { factory: (opts?: O) => F; constant: F } {
  return {
    factory: (opts = {} as O) => {
      const config = fill(opts);
      return { ...build(() => config), config };
    },
    constant: build(legacy),
  };
}
