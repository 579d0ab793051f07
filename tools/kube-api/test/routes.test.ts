// The Kubernetes REST path shapes as find-my-way routes: which route a path takes and what it says.
import { parseResourcePath, resourcePatterns, RouteTable, type ParsedPath } from '../src/routes';

const table = new RouteTable<(path: string, params: Record<string, string | undefined>) => ParsedPath>();
for (const { pattern, shape } of resourcePatterns()) table.add(pattern, (path, params) => parseResourcePath(params, shape, path));

function parse(path: string): Partial<ParsedPath> | undefined {
  const hit = table.find('GET', path);
  if (!hit) return undefined;
  const p = hit.route(path, hit.params);
  // Only the parts that are set, so each expectation names what it is about.
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== '' && v !== false));
}

describe('resource routes', () => {
  it('take a core and a group path apart, cluster-scoped and namespaced', () => {
    expect(parse('/api/v1/nodes')).toEqual({ version: 'v1', resource: 'nodes' });
    expect(parse('/api/v1/namespaces/x/pods/web')).toEqual({ version: 'v1', namespace: 'x', resource: 'pods', name: 'web' });
    expect(parse('/apis/crd.antrea.io/v1beta1/namespaces/x/networkpolicies/np/status')).toEqual({ group: 'crd.antrea.io', version: 'v1beta1', namespace: 'x', resource: 'networkpolicies', name: 'np', subresource: 'status' });
  });

  it('read namespaces and namespaces/<name> as the Namespace resource, not as a namespace scope', () => {
    expect(parse('/api/v1/namespaces')).toEqual({ version: 'v1', resource: 'namespaces' });
    expect(parse('/api/v1/namespaces/x')).toEqual({ version: 'v1', resource: 'namespaces', name: 'x' });
    expect(parse('/api/v1/namespaces/x/status')).toEqual({ version: 'v1', resource: 'namespaces', name: 'x', subresource: 'status' });
    expect(parse('/api/v1/namespaces/x/finalize')).toEqual({ version: 'v1', resource: 'namespaces', name: 'x', subresource: 'finalize' });
    // Only the core group has that Namespace form.
    expect(parse('/apis/g/v1/namespaces/x/status')).toEqual({ group: 'g', version: 'v1', namespace: 'x', resource: 'status' });
  });

  it('mark the legacy /watch/ prefix', () => {
    expect(parse('/api/v1/watch/namespaces/x/pods')).toEqual({ version: 'v1', namespace: 'x', resource: 'pods', legacyWatch: true });
    expect(parse('/apis/g/v1/watch/things/a')).toEqual({ group: 'g', version: 'v1', resource: 'things', name: 'a', legacyWatch: true });
  });

  it("keep a proxy's path as it came, with a root path when there is none", () => {
    expect(parse('/api/v1/nodes/n1/proxy')).toEqual({ version: 'v1', resource: 'nodes', name: 'n1', subresource: 'proxy', proxyPath: '/' });
    expect(parse('/api/v1/nodes/n1/proxy/')).toMatchObject({ proxyPath: '/' });
    expect(parse('/api/v1/namespaces/x/services/https:web:443/proxy/a/b%2Fc')).toEqual({ version: 'v1', namespace: 'x', resource: 'services', name: 'https:web:443', subresource: 'proxy', proxyPath: '/a/b%2Fc' });
    // What follows another subresource is not a path of its own.
    expect(parse('/api/v1/nodes/n1/status/extra')).toEqual({ version: 'v1', resource: 'nodes', name: 'n1', subresource: 'status' });
  });

  it('ignore a trailing slash and repeated slashes, and decode names', () => {
    expect(parse('/api/v1/pods/')).toEqual({ version: 'v1', resource: 'pods' });
    expect(parse('//api//v1/pods')).toEqual({ version: 'v1', resource: 'pods' });
    expect(parse('/api/v1/namespaces/x/configmaps/a%3Ab')).toMatchObject({ name: 'a:b' });
  });

  it('take no path that is not a resource path', () => {
    expect(parse('/api/v1')).toBeUndefined();
    expect(parse('/apis/g/v1')).toBeUndefined();
    expect(parse('/openapi/v2')).toBeUndefined();
  });
});
