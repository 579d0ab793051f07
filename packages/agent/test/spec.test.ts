// CNI spec helpers shared by the plugin and the server: config checks, CNI_ARGS, result versions.
import { CniError, parseNetConf, compareVersions } from '../src/index';
import { formatResult, parseCniArgs, parsePrevResult, type CniResult } from '../src/cni/spec';

const codeOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof CniError ? e.code : -1;
  }
  return undefined;
};

describe('parseNetConf', () => {
  it('accepts every supported version and keeps plugin keys', () => {
    for (const v of ['0.3.0', '0.3.1', '0.4.0', '1.0.0']) {
      const c = parseNetConf(JSON.stringify({ cniVersion: v, name: 'n', type: 'switchyard-cni', cniSocket: '/x' }));
      expect(c).toMatchObject({ cniVersion: v, name: 'n', type: 'switchyard-cni' });
      expect(c.raw.cniSocket).toBe('/x');
    }
  });
  it('rejects invalid JSON with code 6 (decode failure)', () => {
    expect(codeOf(() => parseNetConf('{'))).toBe(6);
    expect(codeOf(() => parseNetConf(''))).toBe(6);
  });
  it('rejects non-objects and missing cniVersion/name/type with code 7', () => {
    expect(codeOf(() => parseNetConf('[]'))).toBe(7);
    expect(codeOf(() => parseNetConf('"x"'))).toBe(7);
    expect(codeOf(() => parseNetConf('{"name":"n","type":"t"}'))).toBe(7);
    expect(codeOf(() => parseNetConf('{"cniVersion":"1.0.0","type":"t"}'))).toBe(7);
    expect(codeOf(() => parseNetConf('{"cniVersion":"1.0.0","name":"n","type":""}'))).toBe(7);
  });
  it('rejects unknown versions with code 1', () => {
    expect(codeOf(() => parseNetConf('{"cniVersion":"0.2.0","name":"n","type":"t"}'))).toBe(1);
    expect(codeOf(() => parseNetConf('{"cniVersion":"1.1.0","name":"n","type":"t"}'))).toBe(1);
  });
  it('keeps prevResult', () => {
    expect(parseNetConf('{"cniVersion":"1.0.0","name":"n","type":"t","prevResult":{"ips":[]}}').prevResult).toEqual({ ips: [] });
  });
});

describe('parseCniArgs', () => {
  it('splits K=V pairs, values may contain =', () => {
    const m = parseCniArgs('IgnoreUnknown=1;K8S_POD_NAME=a;K8S_POD_NAMESPACE=b;X=y=z');
    expect(m.get('K8S_POD_NAME')).toBe('a');
    expect(m.get('K8S_POD_NAMESPACE')).toBe('b');
    expect(m.get('X')).toBe('y=z');
    expect(parseCniArgs('').size).toBe(0);
  });
  it('rejects a part without = with code 4', () => {
    expect(codeOf(() => parseCniArgs('K8S_POD_NAME'))).toBe(4);
  });
});

describe('formatResult', () => {
  const r: CniResult = {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'h' }, { name: 'eth0', mac: '02:00:00:00:00:01', sandbox: '/n' }],
    ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 1 }, { address: 'fd00::2/64', interface: 1 }],
    routes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }],
  };
  it('writes 1.0.0 results without ip versions', () => {
    const out = formatResult(r, '1.0.0');
    expect(out.cniVersion).toBe('1.0.0');
    expect(out.ips).toEqual(r.ips);
    expect(out.dns).toEqual({});
  });
  it.each(['0.3.0', '0.3.1', '0.4.0'])('adds the ip version for %s', (v) => {
    const out = formatResult(r, v);
    expect(out.cniVersion).toBe(v);
    expect((out.ips as { version: string }[]).map((i) => i.version)).toEqual(['4', '6']);
  });
});

describe('parsePrevResult', () => {
  it('reads 0.4.0 and 1.0.0 results into one layout', () => {
    const p = parsePrevResult({ cniVersion: '0.4.0', ips: [{ version: '4', address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 1 }], interfaces: [{ name: 'eth0', mac: 'm', sandbox: '/n' }] });
    expect(p.ips).toEqual([{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 1 }]);
    expect(p.interfaces).toEqual([{ name: 'eth0', mac: 'm', sandbox: '/n' }]);
  });
  it('rejects malformed entries with code 7', () => {
    expect(codeOf(() => parsePrevResult('x'))).toBe(7);
    expect(codeOf(() => parsePrevResult({ ips: [{ address: 5 }] }))).toBe(7);
    expect(codeOf(() => parsePrevResult({ interfaces: [{}] }))).toBe(7);
  });
});

describe('CniError', () => {
  it('prints the spec error JSON in the requested version', () => {
    expect(new CniError(7, 'bad', 'why').toJSON('0.4.0')).toEqual({ cniVersion: '0.4.0', code: 7, msg: 'bad', details: 'why' });
    expect(new CniError(11, 'later').toJSON()).toEqual({ cniVersion: '1.0.0', code: 11, msg: 'later' });
  });
});

it('compareVersions orders dotted versions numerically', () => {
  expect(compareVersions('0.10.0', '0.4.0')).toBeGreaterThan(0);
  expect(compareVersions('0.3.1', '0.4.0')).toBeLessThan(0);
  expect(compareVersions('1.0.0', '1.0')).toBe(0);
});
