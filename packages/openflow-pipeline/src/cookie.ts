/**
 * Flow cookies: round number (16 bits) | category (8 bits) | reserved (8 bits) | object id (32 bits),
 * as Antrea's cookie allocator. The round changes on every agent restart, so flows of the previous
 * round can be found and deleted once the new round is installed.
 */
import { PipelineError } from './errors';

/** Flow categories (the cookie's category byte). */
export const CookieCategory = {
  Default: 0,
  PodConnectivity: 1,
  NetworkPolicy: 2,
  Service: 3,
  Egress: 4,
  Multicast: 5,
  Multicluster: 6,
  Traceflow: 7,
  ExternalNodeConnectivity: 8,
} as const;
export type CookieCategory = (typeof CookieCategory)[keyof typeof CookieCategory];

export const ROUND_MASK = 0xffff_0000_0000_0000n;
export const CATEGORY_MASK = 0x0000_ff00_0000_0000n;
export const OBJECT_ID_MASK = 0xffff_ffffn;

/** Builds a cookie. */
export function makeCookie(round: number, category: CookieCategory, objectId = 0): bigint {
  if (!Number.isInteger(round) || round < 0 || round > 0xffff) throw new PipelineError('VALUE_OUT_OF_RANGE', 'round must fit 16 bits', round, 'round');
  if (!Number.isInteger(objectId) || objectId < 0 || objectId > 0xffffffff) throw new PipelineError('VALUE_OUT_OF_RANGE', 'object id must fit 32 bits', objectId, 'objectId');
  return (BigInt(round) << 48n) | (BigInt(category) << 40n) | BigInt(objectId);
}

/** The parts of a cookie. */
export function parseCookie(cookie: bigint): { round: number; category: number; objectId: number } {
  return {
    round: Number((cookie & ROUND_MASK) >> 48n),
    category: Number((cookie & CATEGORY_MASK) >> 40n),
    objectId: Number(cookie & OBJECT_ID_MASK),
  };
}

/** Cookie and mask selecting every flow of a round (for a delete-by-cookie flow-mod). */
export function cookieMaskForRound(round: number): { cookie: bigint; cookieMask: bigint } {
  return { cookie: makeCookie(round, 0), cookieMask: ROUND_MASK };
}

/** The round after `round` (16-bit wrap, 0 skipped so a zero cookie never looks like ours). */
export function nextRound(round: number): number {
  const n = (round + 1) & 0xffff;
  return n === 0 ? 1 : n;
}

/** True when the flow's cookie belongs to a round other than `currentRound` (stale after a restart). */
export function isStaleRound(cookie: bigint | undefined, currentRound: number): boolean {
  return cookie !== undefined && parseCookie(cookie).round !== currentRound;
}

/** The flows of previous rounds among installed flows: what to delete once the new round is in. */
export function flowsOfPreviousRounds<F extends { cookie?: bigint }>(installed: readonly F[], currentRound: number): F[] {
  return installed.filter((f) => isStaleRound(f.cookie, currentRound));
}
