import { compileSchema } from '../src/schema';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['ingress'],
      properties: {
        priority: { type: 'number', default: 100 },
        action: { type: 'string', enum: ['Allow', 'Drop'] },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        port: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        ingress: {
          type: 'array',
          items: {
            type: 'object',
            properties: { ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', minimum: 1, maximum: 65535 } } } } },
          },
        },
        maybe: { type: 'string', nullable: true },
      },
    },
  },
};

describe('CRD structural schema', () => {
  const v = compileSchema(schema);

  it('reports field paths like kube-apiserver', () => {
    const errs = v.validate({ spec: { ingress: [{ ports: [{ port: 70000 }] }], action: 'Reject' } });
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual(
      expect.arrayContaining([
        'spec.ingress[0].ports[0].port: Invalid value: 70000: spec.ingress[0].ports[0].port in body should be less than or equal to 65535',
        'spec.action: Unsupported value: "Reject": supported values: "Allow", "Drop"',
      ]),
    );
  });

  it('reports missing required fields and wrong types', () => {
    const errs = v.validate({ spec: { name: 7 } });
    expect(errs).toEqual(
      expect.arrayContaining([
        { field: 'spec.ingress', reason: 'FieldValueRequired', detail: 'Required value' },
        expect.objectContaining({ field: 'spec.name', reason: 'FieldValueTypeInvalid' }),
      ]),
    );
  });

  it('accepts int-or-string, nullable and applies defaults', () => {
    const obj = { spec: { ingress: [], port: 'http', maybe: null } } as Record<string, unknown>;
    expect(v.validate(obj)).toEqual([]);
    expect((obj.spec as Record<string, unknown>).priority).toBe(100);
    expect(v.validate({ spec: { ingress: [], port: 80 } })).toEqual([]);
  });

  it('prunes unknown fields but keeps preserved subtrees and metadata', () => {
    const obj = { apiVersion: 'x/v1', kind: 'K', metadata: { name: 'a', whatever: 1 }, spec: { ingress: [{ bogus: 1 }], free: { any: { thing: 1 } }, extra: true }, top: 1 };
    expect(v.prune(obj).sort()).toEqual(['spec.extra', 'spec.ingress[0].bogus', 'top']);
    expect(obj).toEqual({ apiVersion: 'x/v1', kind: 'K', metadata: { name: 'a', whatever: 1 }, spec: { ingress: [{}], free: { any: { thing: 1 } } } });
  });
});
