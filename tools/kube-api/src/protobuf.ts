// Decoding of Kubernetes protobuf request bodies for the kinds kubectl's typed `create`
// subcommands send (namespace, configmap, secret, serviceaccount, token, RBAC). Responses are
// always JSON, which every client accepts alongside protobuf. protobufjs's Reader reads the wire
// format; the schemas below say what each field is.

import protobuf from 'protobufjs/minimal.js';
import { badRequest, KubeApiError } from './errors';

type Scalar = 'string' | 'bytes' | 'bool' | 'int';
interface MapType {
  map: [Scalar, Scalar | MessageSchema];
}
type FieldType = Scalar | MessageSchema | MapType;
/** field number -> [json name, type, repeated?] */
type MessageSchema = { [field: number]: [string, FieldType, boolean?] };

const labelSelectorRequirement: MessageSchema = { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'string', true] };
const labelSelector: MessageSchema = { 1: ['matchLabels', { map: ['string', 'string'] }], 2: ['matchExpressions', labelSelectorRequirement, true] };
const ownerReference: MessageSchema = { 5: ['apiVersion', 'string'], 1: ['kind', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'] };
const objectMeta: MessageSchema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  11: ['labels', { map: ['string', 'string'] }],
  12: ['annotations', { map: ['string', 'string'] }],
  13: ['ownerReferences', ownerReference, true],
  14: ['finalizers', 'string', true],
};
const objectReference: MessageSchema = { 1: ['kind', 'string'], 2: ['namespace', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'] };
const policyRule: MessageSchema = { 1: ['verbs', 'string', true], 2: ['apiGroups', 'string', true], 3: ['resources', 'string', true], 4: ['resourceNames', 'string', true], 5: ['nonResourceURLs', 'string', true] };
const subject: MessageSchema = { 1: ['kind', 'string'], 2: ['apiGroup', 'string'], 3: ['name', 'string'], 4: ['namespace', 'string'] };
const roleRef: MessageSchema = { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] };

const resourceAttributes: MessageSchema = { 1: ['namespace', 'string'], 2: ['verb', 'string'], 3: ['group', 'string'], 4: ['version', 'string'], 5: ['resource', 'string'], 6: ['subresource', 'string'], 7: ['name', 'string'] };
const nonResourceAttributes: MessageSchema = { 1: ['path', 'string'], 2: ['verb', 'string'] };
const sarSpec: MessageSchema = { 1: ['resourceAttributes', resourceAttributes], 2: ['nonResourceAttributes', nonResourceAttributes], 3: ['user', 'string'], 4: ['groups', 'string', true], 6: ['uid', 'string'] };

const kinds: Record<string, MessageSchema> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['resourceAttributes', resourceAttributes], 2: ['nonResourceAttributes', nonResourceAttributes] }] },
  'authorization.k8s.io/v1/SubjectAccessReview': { 1: ['metadata', objectMeta], 2: ['spec', sarSpec] },
  'authorization.k8s.io/v1/LocalSubjectAccessReview': { 1: ['metadata', objectMeta], 2: ['spec', sarSpec] },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['namespace', 'string'] }] },
  'authentication.k8s.io/v1/TokenReview': { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['token', 'string'], 2: ['audiences', 'string', true] }] },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: ['metadata', objectMeta] },
  'v1/Namespace': { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['finalizers', 'string', true] }] },
  'v1/ConfigMap': { 1: ['metadata', objectMeta], 2: ['data', { map: ['string', 'string'] }], 3: ['binaryData', { map: ['string', 'bytes'] }], 4: ['immutable', 'bool'] },
  'v1/Secret': { 1: ['metadata', objectMeta], 2: ['data', { map: ['string', 'bytes'] }], 3: ['type', 'string'], 4: ['stringData', { map: ['string', 'string'] }], 5: ['immutable', 'bool'] },
  'v1/ServiceAccount': { 1: ['metadata', objectMeta], 2: ['secrets', objectReference, true], 3: ['imagePullSecrets', { 1: ['name', 'string'] }, true], 4: ['automountServiceAccountToken', 'bool'] },
  'authentication.k8s.io/v1/TokenRequest': {
    1: ['metadata', objectMeta],
    2: ['spec', { 1: ['audiences', 'string', true], 4: ['expirationSeconds', 'int'], 3: ['boundObjectRef', { 1: ['kind', 'string'], 2: ['apiVersion', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'] }] }],
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: ['metadata', objectMeta], 2: ['rules', policyRule, true] },
  'rbac.authorization.k8s.io/v1/ClusterRole': { 1: ['metadata', objectMeta], 2: ['rules', policyRule, true], 3: ['aggregationRule', { 1: ['clusterRoleSelectors', labelSelector, true] }] },
  'rbac.authorization.k8s.io/v1/RoleBinding': { 1: ['metadata', objectMeta], 2: ['subjects', subject, true], 3: ['roleRef', roleRef] },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { 1: ['metadata', objectMeta], 2: ['subjects', subject, true], 3: ['roleRef', roleRef] },
};

/** A value of a scalar field at the reader's position, in its JSON form. */
function scalar(r: protobuf.Reader, wire: number, t: Scalar): unknown {
  switch (t) {
    case 'string':
      return r.string();
    case 'bytes': {
      const b = r.bytes();
      return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
    }
    case 'bool':
      return r.bool();
    case 'int': {
      // A length-delimited value where an integer belongs is not one: skipped.
      if (wire !== 0) {
        r.skipType(wire);
        return 0;
      }
      return protobuf.util.LongBits.from(r.int64()).toNumber();
    }
  }
}

/** One map entry (key field 1, value field 2) ending at `end`. */
function mapEntry(r: protobuf.Reader, end: number, type: MapType): [string, unknown] {
  let k: unknown = '';
  let v: unknown = type.map[1] === 'string' || type.map[1] === 'bytes' ? '' : {};
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) k = scalar(r, tag & 7, type.map[0]);
    else if (tag >>> 3 === 2) v = typeof type.map[1] === 'string' ? scalar(r, tag & 7, type.map[1]) : decodeMessage(r, r.uint32() + r.pos, type.map[1]);
    else r.skipType(tag & 7);
  }
  return [String(k), v];
}

/** The message of `schema` from the reader's position to `end`, as JSON (unknown fields skipped). */
function decodeMessage(r: protobuf.Reader, end: number, schema: MessageSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    const spec = schema[tag >>> 3];
    if (!spec) {
      r.skipType(wire);
      continue;
    }
    const [name, type, repeated] = spec;
    if (typeof type !== 'string' && 'map' in type) {
      const [k, v] = mapEntry(r, r.uint32() + r.pos, type);
      out[name] = { ...((out[name] as Record<string, unknown> | undefined) ?? {}), [k]: v };
      continue;
    }
    const value = typeof type === 'string' ? scalar(r, wire, type) : decodeMessage(r, r.uint32() + r.pos, type);
    if (repeated) out[name] = [...((out[name] as unknown[] | undefined) ?? []), value];
    // gogo-protobuf writes zero values of non-pointer fields; JSON (omitempty) would not.
    else if (value !== '' && value !== false && value !== 0) out[name] = value;
  }
  return out;
}

/** The message of `schema` in `buf`; a body protobufjs cannot read is a bad request. */
function decode(buf: Uint8Array, schema: MessageSchema): Record<string, unknown> {
  const r = protobuf.Reader.create(buf);
  try {
    return decodeMessage(r, r.len, schema);
  } catch (e) {
    throw badRequest(`invalid protobuf body: ${(e as Error).message}`);
  }
}

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decode a `k8s\0`-framed runtime.Unknown body into a JSON object of its kind. */
export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, 4).equals(magic)) throw new KubeApiError('UnsupportedMediaType', 'protobuf body without the k8s magic prefix');
  const envelope = decode(body.subarray(4), { 1: ['typeMeta', { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] }], 2: ['raw', 'bytes'] });
  const tm = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const schema = kinds[`${tm.apiVersion ?? ''}/${tm.kind ?? ''}`];
  if (!schema) {
    throw new KubeApiError('UnsupportedMediaType', `the body of the request was in an unknown format - protobuf is only decoded for ${Object.keys(kinds).join(', ')}; send application/json`);
  }
  const obj = decode(Buffer.from(String(envelope.raw ?? ''), 'base64'), schema);
  return { apiVersion: tm.apiVersion, kind: tm.kind, ...obj };
}
