/** What a host route sync must change: a pure diff of the routes the node has and the ones wanted. */

/** A host route to a remote pod CIDR. */
export interface HostRoute {
  /** `a.b.c.d/len` (or an IPv6 prefix, dual-stack). */
  dst: string;
  via?: string;
  dev: string;
  onlink?: boolean;
}

/** A route as read back from the node (a /32 may come without its length). */
export interface RouteSeen {
  dst: string;
  gateway?: string;
  dev?: string;
}

export interface RoutePlan {
  /** Destinations no wanted route covers any more. */
  delete: string[];
  /** Wanted routes the node does not have exactly (to be replaced in). */
  replace: HostRoute[];
}

const withLength = (dst: string): string => (dst.includes('/') ? dst : `${dst}/${dst.includes(':') ? 128 : 32}`);

/**
 * Routes to delete and to replace so the node has exactly `want`. A destination still wanted by a
 * different next hop is replaced, not deleted first (no window without a route).
 */
export function planRouteSync(have: readonly RouteSeen[], want: readonly HostRoute[]): RoutePlan {
  const wantKeys = new Map(want.map((r) => [`${r.dst} ${r.via ?? ''} ${r.dev}`, r]));
  const wantDsts = new Set(want.map((r) => r.dst));
  const haveKeys = new Set(have.map((h) => `${withLength(h.dst)} ${h.gateway ?? ''} ${h.dev ?? ''}`));
  const del = [...new Set(have.map((h) => withLength(h.dst)).filter((d) => !wantDsts.has(d)))];
  const replace = [...wantKeys].filter(([k]) => !haveKeys.has(k)).map(([, r]) => r);
  return { delete: del, replace };
}
