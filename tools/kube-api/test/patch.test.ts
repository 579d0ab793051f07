import { jsonPatch, mergePatch, strategicMerge } from '../src/patch';
import { prototypeNamedKeys, rfc6902Examples, rfc7396Examples } from './support/patch-vectors';

describe('JSON merge patch', () => {
  it('merges maps, deletes nulls and replaces lists', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({ a: { c: 2, d: 3 }, l: [3] });
  });

  it.each(rfc7396Examples.map((e, i) => [i + 1, ...e]))('RFC 7396 appendix A example %i', (_n, target, patch, result) => {
    const before = JSON.stringify(target);
    expect(mergePatch(target, patch)).toEqual(result);
    expect(JSON.stringify(target)).toBe(before);
  });

  it('treats keys named like Object.prototype members as data', () => {
    const [target, patch, result] = prototypeNamedKeys;
    const out = mergePatch(target, patch) as { data: object };
    expect(JSON.stringify(out)).toBe(JSON.stringify(result));
    expect(Object.getPrototypeOf(out.data)).toBe(Object.prototype);
  });
});

describe('JSON patch', () => {
  it('applies add, replace, remove, move, copy and test', () => {
    const doc = { metadata: { labels: { a: '1' } }, list: [1, 2] };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/metadata/labels/b', value: '2' },
      { op: 'replace', path: '/metadata/labels/a', value: 'x' },
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'remove', path: '/list/0' },
      { op: 'copy', from: '/metadata/labels/b', path: '/c' },
      { op: 'move', from: '/c', path: '/d' },
      { op: 'test', path: '/d', value: '2' },
      { op: 'add', path: '/metadata/labels/x~1y', value: 'slash' },
    ]);
    expect(out).toEqual({ metadata: { labels: { a: 'x', b: '2', 'x/y': 'slash' } }, list: [2, 3], d: '2' });
    expect(doc.list).toEqual([1, 2]);
  });

  it.each(rfc6902Examples.map((v) => [v.comment, v]))('RFC 6902 %s', (_c, v) => {
    if (v.error) expect(() => jsonPatch(v.doc, v.patch)).toThrow(expect.objectContaining({ code: 'Invalid' }));
    else expect(jsonPatch(v.doc, v.patch)).toEqual(v.expected);
  });

  it('says which operation failed and why, 400 for a body that is not a patch', () => {
    expect(() => jsonPatch({ a: [1] }, [{ op: 'add', path: '/a/5', value: 2 }])).toThrow('the server rejected our request due to an error in our request: add operation on /a/5: index out of range');
    expect(() => jsonPatch({ a: 1 }, [{ op: 'move', from: '/nope', path: '/b' }])).toThrow(/move operation on \/b: missing from path/);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'frobnicate', path: '/a' }])).toThrow(/frobnicate operation on \/a: unknown operation "frobnicate"/);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: 'a' }])).toThrow(expect.objectContaining({ code: 'BadRequest', message: 'invalid JSON pointer "a"' }));
    expect(() => jsonPatch({ a: 1 }, { op: 'remove', path: '/a' })).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });

  it('fails a failed test operation and a missing path with 422', () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(/testing value failed/);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/b/c', value: 2 }])).toThrow(/missing path/);
  });
});

describe('strategic merge patch', () => {
  const pod = {
    spec: {
      containers: [
        { name: 'a', image: 'a:1', ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'X', value: '1' }] },
        { name: 'b', image: 'b:1' },
      ],
    },
    metadata: { finalizers: ['f1'] },
  };

  it('merges containers by name, ports by containerPort and env by name', () => {
    const out = strategicMerge(pod, {
      spec: { containers: [{ name: 'a', image: 'a:2', ports: [{ containerPort: 443, name: 'https' }], env: [{ name: 'Y', value: '2' }] }] },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['a', 'b']);
    expect(out.spec.containers[0]).toEqual({
      name: 'a',
      image: 'a:2',
      ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }],
      env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }],
    });
  });

  it('honours $patch: delete, $setElementOrder and $deleteFromPrimitiveList', () => {
    const out = strategicMerge(pod, {
      spec: { containers: [{ name: 'b', $patch: 'delete' }] },
      metadata: { finalizers: ['f2'] },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['a']);
    expect(out.metadata.finalizers).toEqual(['f1', 'f2']);
    const reordered = strategicMerge(pod, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } }) as typeof pod;
    expect(reordered.spec.containers.map((c) => c.name)).toEqual(['b', 'a']);
    const removed = strategicMerge(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['f1'] } }) as typeof pod;
    expect(removed.metadata.finalizers).toEqual([]);
  });

  it('merges Service ports by port and replaces lists without a merge key', () => {
    const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }], externalIPs: ['1.1.1.1'] } };
    const out = strategicMerge(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }], externalIPs: ['2.2.2.2'] } });
    expect(out).toEqual({ spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }], externalIPs: ['2.2.2.2'] } });
  });

  it('deletes map keys set to null', () => {
    expect(strategicMerge({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: null } } })).toEqual({ metadata: { labels: { b: '2' } } });
  });
});
