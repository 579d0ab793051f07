import { normalizedLabel } from '../src/index';

describe('Multi-cluster naming', () => {
  test('a normalized label lists namespace then pod labels, keys sorted, whatever their order', () => {
    expect(normalizedLabel({ b: '2', a: '1' }, { z: 'x', app: 'db' })).toBe('ns:a=1,b=2&pod:app=db,z=x');
    expect(normalizedLabel({ a: '1', b: '2' }, { app: 'db', z: 'x' })).toBe(normalizedLabel({ b: '2', a: '1' }, { z: 'x', app: 'db' }));
  });

  test('absent and empty label sets normalize alike', () => {
    expect(normalizedLabel(undefined, undefined)).toBe('ns:&pod:');
    expect(normalizedLabel({}, {})).toBe('ns:&pod:');
  });
});
