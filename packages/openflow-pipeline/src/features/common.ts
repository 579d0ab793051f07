/** Small builders shared by the feature modules. */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import type { Feature } from '../feature';
import type { NodeConfig } from '../state';
import { ETH_ARP, ETH_IP, GLOBAL_VIRTUAL_MAC, SwapField } from '../fields';

export const IP: Match = { ethType: ETH_IP };
export const ARP: Match = { ethType: ETH_ARP };

export const goto = (table: number): Action => ({ type: 'gotoTable', table });
export const resubmit = (table: number): Action => ({ type: 'resubmit', table });
export const setEthSrc = (mac: string): Action => ({ type: 'setField', field: 'ethSrc', value: mac });
export const setEthDst = (mac: string): Action => ({ type: 'setField', field: 'ethDst', value: mac });
export const setTunDst = (ip: string): Action => ({ type: 'setField', field: 'tunIpv4Dst', value: ip });

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
