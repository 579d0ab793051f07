// OpenAPI endpoints, only as much as kubectl needs: /openapi/v3 announces server-side field
// validation for every kind (so kubectl leaves validation to the server and sends
// fieldValidation=Strict), and /openapi/v2 is an empty document (no client-side schemas).

import { createHash } from 'node:crypto';
import type { ResourceRegistry } from './registry';
import { apiVersionOf } from './registry';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** One group-version document: a PATCH operation per kind carrying fieldValidation. */
export function openapiV3Doc(reg: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = reg.all().filter((t) => t.group === group && t.versions.includes(version));
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${t.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group, version, kind: t.kind },
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: apiVersionOf(group, version) },
    paths,
    components: { schemas: {} },
  };
}

/** The /openapi/v3 discovery root: one entry per served group-version. */
export function openapiV3Root(reg: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of reg.groups()) {
    for (const v of versions) {
      const doc = openapiV3Doc(reg, group, v);
      const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 32).toUpperCase();
      paths[gvPath(group, v)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, v)}?hash=${hash}` };
    }
  }
  return { paths };
}
