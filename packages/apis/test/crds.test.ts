import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { hasCrdSchema, loadCrds, toInternalVersion, validateObject } from '../src/index';
import type { CustomResourceDefinition, JSONSchemaProps } from '../src/index';
import { renderCrdYaml } from '../scripts/generate-crds';
import { seedDocs, withInferredApiVersion } from './support/seeds';

const crdDir = join(__dirname, '..', 'crds');
const crds = loadCrds();

/**
 * The structural-schema rules of apiextensions.k8s.io/v1 (see "Specifying a structural schema"
 * in the Kubernetes docs), as far as our schemas use the features they restrict.
 */
function structuralViolations(schema: JSONSchemaProps, path: string, inJunctor = false): string[] {
  const out: string[] = [];
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (!inJunctor && !intOrString && typeof schema['type'] !== 'string') out.push(`${path}: no type`);
  if (inJunctor && ('properties' in schema || 'items' in schema || 'additionalProperties' in schema || 'default' in schema || 'description' in schema)) {
    out.push(`${path}: properties/items/additionalProperties/default/description inside anyOf/allOf/oneOf/not`);
  }
  if ('properties' in schema && 'additionalProperties' in schema) out.push(`${path}: both properties and additionalProperties`);
  if (schema['type'] === 'array' && (typeof schema['items'] !== 'object' || Array.isArray(schema['items']))) out.push(`${path}: array without a single items schema`);
  if ('$ref' in schema) out.push(`${path}: $ref is not allowed`);
  if (schema['nullable'] === true && !('type' in schema)) out.push(`${path}: nullable without type`);
  if (intOrString) {
    const any = schema['anyOf'];
    const ok = Array.isArray(any) && any.length === 2 && (any[0] as JSONSchemaProps)['type'] === 'integer' && (any[1] as JSONSchemaProps)['type'] === 'string';
    if (!ok) out.push(`${path}: x-kubernetes-int-or-string needs anyOf [integer, string]`);
    if ('type' in schema) out.push(`${path}: x-kubernetes-int-or-string must not set type`);
  }
  if (preserve && schema['type'] !== 'object') out.push(`${path}: x-kubernetes-preserve-unknown-fields on a non-object`);
  for (const [k, v] of Object.entries((schema['properties'] as Record<string, JSONSchemaProps> | undefined) ?? {})) out.push(...structuralViolations(v, `${path}.${k}`));
  if (typeof schema['items'] === 'object') out.push(...structuralViolations(schema['items'] as JSONSchemaProps, `${path}[]`));
  if (typeof schema['additionalProperties'] === 'object') out.push(...structuralViolations(schema['additionalProperties'] as JSONSchemaProps, `${path}{}`));
  for (const j of ['anyOf', 'allOf', 'oneOf']) {
    const branches = schema[j];
    if (Array.isArray(branches)) {
      branches.forEach((b: JSONSchemaProps, i) => {
        // The int-or-string pattern is the one place where types inside anyOf are allowed.
        if (intOrString && j === 'anyOf') return;
        if ('type' in b) out.push(`${path}.${j}[${i}]: type inside a junctor`);
        out.push(...structuralViolations(b, `${path}.${j}[${i}]`, true));
      });
    }
  }
  return out;
}

describe('CRD manifests', () => {
  test('crds/*.yaml and the embedded copy are up to date with scripts/crd-schemas.ts', () => {
    const rendered = renderCrdYaml();
    const files = readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toEqual([...rendered.keys()].sort());
    for (const f of files) expect(readFileSync(join(crdDir, f), 'utf8')).toBe(rendered.get(f));
    expect(crds).toEqual(files.map((f) => parse(readFileSync(join(crdDir, f), 'utf8'))));
  });

  test('every group the project defines is shipped with all of its kinds', () => {
    const kinds = crds.map((c) => `${c.spec.group}/${c.spec.names.kind}`).sort();
    expect(kinds).toEqual(
      [
        'crd.antrea.io/AntreaAgentInfo', 'crd.antrea.io/AntreaControllerInfo', 'crd.antrea.io/AntreaNetworkPolicy', 'crd.antrea.io/ClusterGroup',
        'crd.antrea.io/ClusterNetworkPolicy', 'crd.antrea.io/Egress', 'crd.antrea.io/ExternalEntity', 'crd.antrea.io/ExternalIPPool', 'crd.antrea.io/ExternalNode', 'crd.antrea.io/Group', 'crd.antrea.io/IPPool',
        'crd.antrea.io/NetworkPolicy', 'crd.antrea.io/Tier', 'crd.antrea.io/Traceflow', 'crd.antrea.io/TrafficControl',
        'multicluster.crd.antrea.io/ClusterInfoImport', 'multicluster.crd.antrea.io/ClusterSet', 'multicluster.crd.antrea.io/Gateway',
        'multicluster.crd.antrea.io/LabelIdentity', 'multicluster.crd.antrea.io/MemberClusterAnnounce', 'multicluster.crd.antrea.io/ResourceExport',
        'multicluster.crd.antrea.io/ResourceImport', 'multicluster.x-k8s.io/ServiceExport', 'multicluster.x-k8s.io/ServiceImport',
        'policy.networking.k8s.io/AdminNetworkPolicy', 'policy.networking.k8s.io/BaselineAdminNetworkPolicy',
      ].sort(),
    );
  });

  test.each(crds.map((c) => [c.metadata.name, c] as const))('%s is a well-formed CRD with structural schemas', (_n, crd: CustomResourceDefinition) => {
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
    expect(crd.spec.names.listKind).toBe(`${crd.spec.names.kind}List`);
    expect(crd.spec.versions.filter((v) => v.storage)).toHaveLength(1);
    for (const v of crd.spec.versions) {
      expect(v.served).toBe(true);
      const root = v.schema.openAPIV3Schema;
      expect(root['type']).toBe('object');
      expect((root['properties'] as Record<string, unknown>)['metadata']).toEqual({ type: 'object' });
      expect(structuralViolations(root, `${v.name}`)).toEqual([]);
      for (const col of v.additionalPrinterColumns ?? []) {
        // The API server only accepts simple JSON paths for printer columns.
        expect(col.jsonPath).toMatch(/^(\.[A-Za-z0-9_]+|\[\d+\])+$/);
        expect(['integer', 'number', 'string', 'boolean', 'date']).toContain(col.type);
      }
    }
  });

  test('every apiVersion of a custom kind in the seeds is served', () => {
    for (const d of seedDocs()) {
      const v = withInferredApiVersion(d);
      const result = validateObject(v);
      if (result.errors.some((e) => e.path === 'kind' && e.keyword === 'kind')) continue; // built-in kind
      expect({ file: d.file, errors: result.errors.filter((e) => e.keyword === 'apiVersion') }).toEqual({ file: d.file, errors: [] });
    }
  });

  test('Antrea current versions are served next to the seed versions', () => {
    const served = (kind: string): string[] => crds.find((c) => c.spec.names.kind === kind && c.spec.group === 'crd.antrea.io')?.spec.versions.map((v) => v.name) ?? [];
    expect(served('ClusterNetworkPolicy')).toEqual(['v1alpha1', 'v1beta1']);
    expect(served('NetworkPolicy')).toEqual(['v1alpha1', 'v1beta1']);
    expect(served('Tier')).toContain('v1beta1');
    expect(served('ClusterGroup')).toContain('v1beta1');
    expect(served('Group')).toContain('v1beta1');
    expect(served('IPPool')).toContain('v1beta1');
    expect(served('ExternalEntity')).toContain('v1alpha2');
    expect(served('ExternalNode')).toEqual(['v1alpha1']);
    // Antrea 2.x serves ExternalIPPool in v1beta1 only.
    expect(served('ExternalIPPool')).toEqual(['v1beta1']);
  });
});

const seed = (file: string): Record<string, unknown> => {
  const d = seedDocs().find((x) => x.file === file);
  if (!d) throw new Error(file);
  return structuredClone(withInferredApiVersion(d));
};
type AnyObj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- mutating parsed YAML in tests

describe('validateObject rejects mutants with the field path', () => {
  test('a CIDR with a /33 prefix', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].from[1].ipBlock.cidr = '172.16.100.5/33';
    const r = validateObject(o);
    expect(r.valid).toBe(false);
    expect(r.errors).toContainEqual(expect.objectContaining({ path: 'spec.ingress[0].from[1].ipBlock.cidr', value: '172.16.100.5/33' }));
  });

  test('a CIDR that is not an address at all', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].from[1].ipBlock.cidr = '172.16.100/24';
    expect(validateObject(o).errors.map((e) => e.path)).toContain('spec.ingress[0].from[1].ipBlock.cidr');
  });

  test('IPv6 CIDRs are checked exactly, not only by pattern', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].from[1].ipBlock.cidr = 'fd00::1/64';
    expect(validateObject(o).valid).toBe(true);
    o['spec'].ingress[0].from[1].ipBlock.cidr = 'fd00:::1/64';
    expect(validateObject(o).errors.map((e) => e.path)).toContain('spec.ingress[0].from[1].ipBlock.cidr');
  });

  test('ipBlock.except (Switchyard extension) accepts CIDRs and rejects a bad one with its path', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].from[1].ipBlock = { cidr: '172.16.0.0/16', except: ['172.16.100.0/24'] };
    expect(validateObject(o).valid).toBe(true);
    o['spec'].ingress[0].from[1].ipBlock.except = ['172.16.100.0/24', '172.16.300.0/24'];
    expect(validateObject(o).errors.map((e) => e.path)).toContain('spec.ingress[0].from[1].ipBlock.except[1]');
  });

  test('port 70000', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].ports[0].port = 70000;
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.ingress[0].ports[0].port', keyword: 'maximum', value: 70000 })]);
  });

  test('a named port is accepted where a port number is', () => {
    const o: AnyObj = seed('external-node-04-antrea-networkpolicy.yaml');
    o['spec'].ingress[0].ports[0].port = 'ssh';
    expect(validateObject(o).valid).toBe(true);
  });

  test('an unknown action', () => {
    const o: AnyObj = seed('multicluster-10-acnp-to-services.yaml');
    o['spec'].egress[0].action = 'Bogus';
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.egress[0].action', keyword: 'enum', value: 'Bogus' })]);
  });

  test('the legacy Deny action is served only by v1alpha1', () => {
    const o: AnyObj = seed('multicluster-11-acnp-ingress-clusterset.yaml');
    expect(validateObject(o).valid).toBe(true);
    o['apiVersion'] = 'crd.antrea.io/v1beta1';
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.ingress[0].action', keyword: 'enum', value: 'Deny' })]);
  });

  test('ACNP priority outside 1..10000', () => {
    const o: AnyObj = seed('multicluster-10-acnp-to-services.yaml');
    o['spec'].priority = 10000.5;
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.priority', keyword: 'maximum' })]);
    o['spec'].priority = 0.5;
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.priority', keyword: 'minimum' })]);
    o['spec'].priority = 2.5;
    expect(validateObject(o).valid).toBe(true);
  });

  test('a misspelled field is reported as unknown instead of being dropped', () => {
    const o: AnyObj = seed('multicluster-10-acnp-to-services.yaml');
    o['spec'].egress[0].acton = 'Drop';
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.egress[0].acton', keyword: 'additionalProperties' })]);
  });

  test('a missing required field', () => {
    const o: AnyObj = seed('multicluster-10-acnp-to-services.yaml');
    delete o['spec'].priority;
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.priority', keyword: 'required' })]);
  });

  test('IPPool status accepts the Allocated, Preallocated and Reserved phases and rejects others', () => {
    const pool = (phase: string) => ({
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'IPPool', metadata: { name: 'p' },
      spec: { ipRanges: [{ cidr: '10.2.0.0/24' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 24 } },
      status: { ipAddresses: [{ ipAddress: '10.2.0.2', phase, owner: { statefulSet: { name: 'web', namespace: 'ns', index: 0 } } }] },
    });
    for (const phase of ['Allocated', 'Preallocated', 'Reserved']) expect(validateObject(pool(phase)).errors).toEqual([]);
    expect(validateObject(pool('Pending')).errors).toEqual([expect.objectContaining({ path: 'status.ipAddresses[0].phase', keyword: 'enum', value: 'Pending' })]);
  });

  test('ExternalIPPool: the example of Antrea\'s service-loadbalancer.md is valid; a malformed start and a missing nodeSelector are not', () => {
    const pool = (spec: Record<string, unknown>) => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'service-external-ip-pool' }, spec, status: { usage: { total: 9, used: 1 } } });
    expect(validateObject(pool({ ipRanges: [{ start: '10.10.0.2', end: '10.10.0.10' }, { cidr: '10.10.1.0/24' }], nodeSelector: { matchLabels: { 'network-role': 'ingress-node' } } })).errors).toEqual([]);
    expect(validateObject(pool({ ipRanges: [{ start: '10.10.0.300', end: '10.10.0.10' }], nodeSelector: {} })).errors).toEqual([expect.objectContaining({ path: 'spec.ipRanges[0].start', keyword: 'pattern' })]);
    expect(validateObject(pool({ ipRanges: [] })).errors).toEqual([expect.objectContaining({ path: 'spec.nodeSelector', keyword: 'required' })]);
  });

  test('an unserved version and an unknown kind', () => {
    const o: AnyObj = seed('multicluster-10-acnp-to-services.yaml');
    o['apiVersion'] = 'crd.antrea.io/v9';
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'apiVersion', keyword: 'apiVersion' })]);
    expect(validateObject({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Nope', metadata: {} }).errors).toEqual([
      expect.objectContaining({ path: 'kind', keyword: 'kind' }),
    ]);
  });

  test('a built-in kind is refused with a message that names it and says only CRD kinds are checked', () => {
    const np = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny-all', namespace: 'default' },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    };
    const { valid, errors } = validateObject(np);
    expect(valid).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: 'kind', keyword: 'kind', value: 'NetworkPolicy' });
    const message = errors[0]?.message ?? '';
    expect(message).toMatch(/^no CRD schema for networking\.k8s\.io\/v1 NetworkPolicy \(validateObject checks the CRD kinds only: /);
    // Every shipped CRD kind is listed under its group, so the reader sees what is covered.
    for (const crd of crds) expect(message).toContain(crd.spec.names.kind);
    expect(message).toContain('crd.antrea.io: ');
    expect(hasCrdSchema('networking.k8s.io/v1', 'NetworkPolicy')).toBe(false);
    expect(hasCrdSchema('crd.antrea.io/v1beta1', 'NetworkPolicy')).toBe(true);
  });

  test('a bad IP in an ExternalNode interface', () => {
    const o: AnyObj = seed('external-node-02-externalnode.yaml');
    o['spec'].interfaces[0].ips = ['172.16.100.300'];
    expect(validateObject(o).errors).toEqual([expect.objectContaining({ path: 'spec.interfaces[0].ips[0]', keyword: 'pattern' })]);
  });
});

describe('conversion to the internal (storage) version', () => {
  test('v1alpha1 ACNP with Deny becomes v1beta1 with Drop and then validates as v1beta1', () => {
    const out = toInternalVersion(seed('multicluster-11-acnp-ingress-clusterset.yaml')) as AnyObj;
    expect(out['apiVersion']).toBe('crd.antrea.io/v1beta1');
    expect(out['spec'].ingress[0].action).toBe('Drop');
    expect(validateObject(out).errors).toEqual([]);
  });

  test('the legacy AntreaNetworkPolicy kind becomes a v1beta1 NetworkPolicy', () => {
    const input = seed('multicluster-12-annp-ingress-clusterset.yaml');
    const out = toInternalVersion(input) as AnyObj;
    expect(out['kind']).toBe('NetworkPolicy');
    expect(out['apiVersion']).toBe('crd.antrea.io/v1beta1');
    expect(out['spec'].ingress.map((r: AnyObj) => r['action'])).toEqual(['Allow', 'Drop']);
    expect(validateObject(out).errors).toEqual([]);
    expect((input as AnyObj)['kind']).toBe('AntreaNetworkPolicy');
  });

  test('the ACNP embedded in a ResourceExport is converted too', () => {
    const out = toInternalVersion(seed('multicluster-14-resourceexport-acnp.yaml')) as AnyObj;
    expect(out['spec'].clusterNetworkPolicy.ingress.map((r: AnyObj) => r['action'])).toEqual(['Pass', 'Drop']);
  });

  test('v1alpha2 ClusterGroup ipBlock becomes ipBlocks', () => {
    const out = toInternalVersion({ apiVersion: 'crd.antrea.io/v1alpha2', kind: 'ClusterGroup', metadata: { name: 'g' }, spec: { ipBlock: { cidr: '10.0.0.0/8' } } }) as AnyObj;
    expect(out).toEqual({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterGroup', metadata: { name: 'g' }, spec: { ipBlocks: [{ cidr: '10.0.0.0/8' }] } });
  });

  test('v1alpha2 IPPool per-range subnet becomes subnetInfo', () => {
    const input = {
      apiVersion: 'crd.antrea.io/v1alpha2', kind: 'IPPool', metadata: { name: 'p' },
      spec: { ipVersion: 4, ipRanges: [{ start: '10.2.0.12', end: '10.2.0.20', gateway: '10.2.0.1', prefixLength: 24, vlan: 2 }] },
    };
    expect(validateObject(input).errors).toEqual([]);
    const out = toInternalVersion(input) as AnyObj;
    expect(out['spec']).toEqual({ ipRanges: [{ start: '10.2.0.12', end: '10.2.0.20' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 24, vlan: 2 } });
    expect(validateObject(out).errors).toEqual([]);
  });

  test('v1alpha1 ClusterSet drops members and leader service accounts', () => {
    const out = toInternalVersion({
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ClusterSet', metadata: { name: 'cs', namespace: 'kube-system' },
      spec: { leaders: [{ clusterID: 'north', serviceAccount: 'sa' }], members: [{ clusterID: 'east' }], namespace: 'antrea-multicluster' },
    }) as AnyObj;
    expect(out['apiVersion']).toBe('multicluster.crd.antrea.io/v1alpha2');
    expect(out['spec']).toEqual({ leaders: [{ clusterID: 'north' }], namespace: 'antrea-multicluster' });
    expect(validateObject(out).errors).toEqual([]);
  });

  test('unknown kinds are refused with a typed error', () => {
    expect(() => toInternalVersion({ apiVersion: 'v1', kind: 'Pod', metadata: {} })).toThrow(expect.objectContaining({ code: 'UNKNOWN_KIND' }));
  });
});
