import { jsonPatch, mergePatch, strategicMerge } from '../src/patch';

describe('JSON merge patch', () => {
  it('merges maps, deletes nulls and replaces lists', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({ a: { c: 2, d: 3 }, l: [3] });
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
