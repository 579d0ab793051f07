// Test vectors transcribed from the RFCs' own examples: RFC 6902 appendix A (JSON patch) and
// RFC 7396 appendix A (JSON merge patch). Used by test/patch.test.ts and bench/patch.ts.

/** One JSON patch example: either the expected document or that it must fail. */
export interface JsonPatchVector {
  comment: string;
  doc: unknown;
  patch: unknown[];
  expected?: unknown;
  error?: true;
}

export const rfc6902Examples: JsonPatchVector[] = [
  { comment: 'A.1 adding an object member', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux' }], expected: { baz: 'qux', foo: 'bar' } },
  { comment: 'A.2 adding an array element', doc: { foo: ['bar', 'baz'] }, patch: [{ op: 'add', path: '/foo/1', value: 'qux' }], expected: { foo: ['bar', 'qux', 'baz'] } },
  { comment: 'A.3 removing an object member', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'remove', path: '/baz' }], expected: { foo: 'bar' } },
  { comment: 'A.4 removing an array element', doc: { foo: ['bar', 'qux', 'baz'] }, patch: [{ op: 'remove', path: '/foo/1' }], expected: { foo: ['bar', 'baz'] } },
  { comment: 'A.5 replacing a value', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'replace', path: '/baz', value: 'boo' }], expected: { baz: 'boo', foo: 'bar' } },
  {
    comment: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    expected: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  { comment: 'A.7 moving an array element', doc: { foo: ['all', 'grass', 'cows', 'eat'] }, patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }], expected: { foo: ['all', 'cows', 'eat', 'grass'] } },
  {
    comment: 'A.8 testing a value: success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
    expected: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  { comment: 'A.9 testing a value: error', doc: { baz: 'qux' }, patch: [{ op: 'test', path: '/baz', value: 'bar' }], error: true },
  { comment: 'A.10 adding a nested member object', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }], expected: { foo: 'bar', child: { grandchild: {} } } },
  { comment: 'A.11 ignoring unrecognized elements', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], expected: { foo: 'bar', baz: 'qux' } },
  { comment: 'A.12 adding to a nonexistent target', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }], error: true },
  // A.13 (an operation with two "op" members) cannot be written once the body is parsed JSON.
  { comment: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: 10 }], expected: { '/': 9, '~1': 10 } },
  { comment: 'A.15 comparing strings and numbers', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: '10' }], error: true },
  { comment: 'A.16 adding an array value', doc: { foo: ['bar'] }, patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], expected: { foo: ['bar', ['abc', 'def']] } },
];

/** RFC 7396 appendix A: [original, patch, result]. */
export const rfc7396Examples: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

/**
 * Keys that are ordinary in Kubernetes objects (a ConfigMap data key, a label) but are also the
 * names of Object.prototype members: a merge must treat them as plain keys and keep going.
 */
export const prototypeNamedKeys: [unknown, unknown, unknown] = [
  { data: { x: '1' } },
  JSON.parse('{"data":{"constructor":"c","__proto__":"u","prototype":"p","toString":"t","other":"2"}}'),
  JSON.parse('{"data":{"x":"1","constructor":"c","__proto__":"u","prototype":"p","toString":"t","other":"2"}}'),
];
