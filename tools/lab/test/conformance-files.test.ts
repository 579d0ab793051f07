import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SUITES, generateConformance, labAddresses } from '../conformance/generate';
import { parseScenario, scenarioPods } from '../src/scenario';

const DIR = join(__dirname, '../conformance');

describe('conformance scenarios', () => {
  const files = generateConformance();

  it('are up to date with the policy-compiler cases (npm run generate:conformance)', () => {
    const onDisk = new Map(Object.keys(SUITES).flatMap((s) => readdirSync(join(DIR, s)).filter((f) => f.endsWith('.yaml')).map((f): [string, string] => [`${s}/${f}`, readFileSync(join(DIR, s, f), 'utf8')])));
    expect([...onDisk.keys()].sort()).toEqual([...files.keys()].sort());
    for (const [rel, text] of files) expect({ rel, text: onDisk.get(rel) }).toEqual({ rel, text });
  });

  it('one scenario per case, each with the 9 model pods over node1/node2 and an expectation on every probe', () => {
    expect(files.size).toBe(Object.values(SUITES).reduce((n, c) => n + c.length, 0));
    for (const [rel, text] of files) {
      const sc = parseScenario(text, rel);
      const pods = [...scenarioPods(sc).values()];
      expect(pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['x/a', 'x/b', 'x/c', 'y/a', 'y/b', 'y/c', 'z/a', 'z/b', 'z/c']);
      expect(new Set(pods.map((p) => (p.spec as { nodeName: string }).nodeName))).toEqual(new Set(['node1', 'node2']));
      for (const st of sc.steps) for (const p of st.probes ?? []) expect(p.expect).toBeDefined();
    }
  });

  it('turns model pod addresses into placeholders and a namespace subnet into its pods', () => {
    expect(labAddresses({ cidr: '10.0.2.2/32', except: ['10.0.1.2/32'] })).toEqual({ cidr: '{{podCIDR y/b}}', except: ['{{podCIDR x/b}}'] });
    expect(labAddresses([{ ipBlock: { cidr: '10.0.2.0/24', except: ['10.0.2.2/32'] } }])).toEqual([{ ipBlock: { cidr: '{{podCIDR y/a}}' } }, { ipBlock: { cidr: '{{podCIDR y/c}}' } }]);
    expect(labAddresses({ networks: ['10.0.3.0/24'] })).toEqual({ networks: ['{{podCIDR z/a}}', '{{podCIDR z/b}}', '{{podCIDR z/c}}'] });
    expect(labAddresses({ ipBlocks: [{ cidr: '10.0.1.0/24' }] })).toEqual({ ipBlocks: ['a', 'b', 'c'].map((p) => ({ cidr: `{{podCIDR x/${p}}}` })) });
    expect(labAddresses({ cidr: '10.0.0.0/8' })).toEqual({ cidr: '{{cidr 10.0.0.0/8 fd00::/8}}' });
    expect(labAddresses({ cidr: '0.0.0.0/0' })).toEqual({ cidr: '0.0.0.0/0' });
  });
});
