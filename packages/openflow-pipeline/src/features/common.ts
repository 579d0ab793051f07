/** Small builders shared by the feature modules. */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { ETH_ARP, ETH_IP } from '../fields';

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
