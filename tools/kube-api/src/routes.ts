// The URL shapes of the Kubernetes REST API (resource paths, their legacy watch and namespaced
// forms, subresources and proxy paths), matched by find-my-way.

import Router from 'find-my-way';

/** The named parts of a matched path (find-my-way's params; a wildcard's rest is `*`). */
export type RouteParams = Record<string, string | undefined>;

/** A resource request's path, taken apart. */
export interface ParsedPath {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** Path after `.../proxy` for proxy subresources (with leading slash). */
  proxyPath: string;
  legacyWatch: boolean;
}

/** Where a resource route sits: behind `/watch`, and how many segments come before a subresource's rest. */
export interface ResourceShape {
  legacyWatch: boolean;
  /** Segments before what follows the subresource (a proxy's path), for subresource routes. */
  restAt?: number;
}

// Kubernetes object names run to 253 characters, and a proxy's `scheme:name:port` to more; the
// server has no limit of its own, so neither does its router.
const MAX_PARAM_LENGTH = 64 * 1024;

/**
 * find-my-way holding routes of the caller's own type `R`: each route is kept as its route's
 * store, so a match hands back `R` with the path's params, on every method.
 */
export class RouteTable<R> {
  private readonly router = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH });

  /** Route every method of `pattern` (find-my-way syntax: `:param`, a trailing `*`) to `route`. */
  add(pattern: string, route: R): this {
    this.router.all(pattern, () => undefined, route);
    return this;
  }

  find(method: string, path: string): { route: R; params: RouteParams } | undefined {
    const hit = this.router.find(method as Router.HTTPMethod, path);
    return hit ? { route: hit.store as R, params: hit.params } : undefined;
  }
}

/**
 * Every resource path pattern with its shape: `/api/{version}` or `/apis/{group}/{version}`, an
 * optional legacy `/watch`, an optional `/namespaces/{namespace}`, then `{resource}`,
 * `{resource}/{name}`, `{resource}/{name}/{subresource}` and that followed by anything (a proxy's
 * path; ignored for other subresources, as before).
 */
export function resourcePatterns(): { pattern: string; shape: ResourceShape }[] {
  const out: { pattern: string; shape: ResourceShape }[] = [];
  for (const prefix of ['/api/:version', '/apis/:group/:version']) {
    for (const legacyWatch of [false, true]) {
      for (const scope of ['', '/namespaces/:namespace']) {
        const base = `${prefix}${legacyWatch ? '/watch' : ''}${scope}`;
        const sub = `${base}/:resource/:name/:subresource`;
        const restAt = sub.split('/').filter((s) => s !== '').length;
        out.push(
          { pattern: `${base}/:resource`, shape: { legacyWatch } },
          { pattern: `${base}/:resource/:name`, shape: { legacyWatch } },
          { pattern: sub, shape: { legacyWatch, restAt } },
          { pattern: `${sub}/*`, shape: { legacyWatch, restAt } },
        );
      }
    }
  }
  return out;
}

/** The parts of a resource path matched by a {@link resourcePatterns} route; `path` is the raw URL path. */
export function parseResourcePath(params: RouteParams, shape: ResourceShape, path: string): ParsedPath {
  const group = params.group ?? '';
  let namespace = params.namespace ?? '';
  let resource = params.resource ?? '';
  let name = params.name ?? '';
  let subresource = params.subresource ?? '';
  // `namespaces/<name>/status` and `/finalize` of the core group are a Namespace's subresources.
  if (group === '' && namespace !== '' && name === '' && (resource === 'status' || resource === 'finalize')) {
    [resource, name, subresource, namespace] = ['namespaces', namespace, resource, ''];
  }
  // The proxy's path as it came (undecoded), not find-my-way's decoded wildcard.
  const proxyPath = subresource === 'proxy' ? `/${path.split('/').filter((s) => s !== '').slice(shape.restAt).join('/')}` : '';
  return { group, version: params.version ?? '', namespace, resource, name, subresource, proxyPath, legacyWatch: shape.legacyWatch };
}

/** The RBAC verb of a resource request. */
export function verbFor(method: string, p: ParsedPath, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch || p.legacyWatch) return 'watch';
      return p.name === '' ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return p.name === '' ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}
