// Kubernetes protobuf request bodies (the k8s\0 envelope around a runtime.Unknown), written here
// with protobufjs's Writer as kubectl's gogo-protobuf writes them, decoded to JSON objects.
import protobuf from 'protobufjs/minimal.js';
import { KubeApiError } from '../src/errors';
import { decodeKubeProtobuf } from '../src/protobuf';

/** Writes one field. */
type Field = (w: protobuf.Writer) => void;
const LEN = 2;
const VARINT = 0;
/** Field `n`: its tag (with the wire type), then the value `write` puts. */
const field =
  (n: number, wire: number, write: (w: protobuf.Writer) => unknown): Field =>
  (w) =>
    void write(w.uint32((n << 3) | wire));
const str = (n: number, s: string): Field => field(n, LEN, (w) => w.string(s));
const bytes = (n: number, b: Uint8Array): Field => field(n, LEN, (w) => w.bytes(b));
const int = (n: number, v: number): Field => field(n, VARINT, (w) => w.int64(v));
const bool = (n: number, v: boolean): Field => field(n, VARINT, (w) => w.bool(v));
const msg =
  (field: number, ...fields: Field[]): Field =>
  (w) => {
    w.uint32((field << 3) | LEN).fork();
    for (const f of fields) f(w);
    w.ldelim();
  };
/** A map<string, string> entry. */
const entry = (field: number, key: string, value: string): Field => msg(field, str(1, key), str(2, value));

function encode(...fields: Field[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const f of fields) f(w);
  return w.finish();
}

/** The body kubectl sends: magic, then runtime.Unknown { typeMeta, raw }. */
function kubeBody(apiVersion: string, kind: string, ...fields: Field[]): Buffer {
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), encode(msg(1, str(1, apiVersion), str(2, kind)), bytes(2, encode(...fields)))]);
}

describe('decodeKubeProtobuf', () => {
  it('decodes a ConfigMap: metadata, string and binary maps; zero values and unknown fields left out', () => {
    const body = kubeBody(
      'v1',
      'ConfigMap',
      msg(1, str(1, 'settings'), str(3, 'x'), int(7, 0), entry(11, 'app', 'web'), entry(11, 'tier', 'front'), str(99, 'unknown')),
      entry(2, 'mode', 'fast'),
      msg(3, str(1, 'blob'), bytes(2, Uint8Array.from([1, 2, 3]))),
      bool(4, false),
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'x', labels: { app: 'web', tier: 'front' } },
      data: { mode: 'fast' },
      binaryData: { blob: 'AQID' },
    });
  });

  it('decodes repeated messages and a nested reference (RoleBinding)', () => {
    const body = kubeBody(
      'rbac.authorization.k8s.io/v1',
      'RoleBinding',
      msg(1, str(1, 'readers')),
      msg(2, str(1, 'User'), str(3, 'alice')),
      msg(2, str(1, 'ServiceAccount'), str(3, 'bot'), str(4, 'x')),
      msg(3, str(1, 'rbac.authorization.k8s.io'), str(2, 'Role'), str(3, 'reader')),
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'readers' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'bot', namespace: 'x' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
  });

  it('decodes integers, booleans and repeated strings (TokenRequest, ServiceAccount)', () => {
    expect(decodeKubeProtobuf(kubeBody('authentication.k8s.io/v1', 'TokenRequest', msg(2, str(1, 'api'), str(1, 'vault'), int(4, 3600))))).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: ['api', 'vault'], expirationSeconds: 3600 },
    });
    expect(decodeKubeProtobuf(kubeBody('v1', 'ServiceAccount', msg(1, str(1, 'bot')), bool(4, true)))).toMatchObject({ automountServiceAccountToken: true });
  });

  it('refuses a body without the k8s magic, and a kind it has no schema for', () => {
    expect(() => decodeKubeProtobuf(Buffer.from(encode(str(1, 'x'))))).toThrow(expect.objectContaining({ code: 'UnsupportedMediaType' }));
    expect(() => decodeKubeProtobuf(kubeBody('apps/v1', 'Deployment', msg(1, str(1, 'web'))))).toThrow(/protobuf is only decoded for .*v1\/ConfigMap.*; send application\/json/);
  });

  it('answers a truncated body with BadRequest', () => {
    const body = kubeBody('v1', 'Namespace', msg(1, str(1, 'x')));
    let error: unknown;
    try {
      decodeKubeProtobuf(body.subarray(0, body.length - 3));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 'BadRequest', httpStatus: 400 });
  });
});
