import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from '../src/selectors';
import { KubeApiError } from '../src/errors';

const labels = { app: 'web', tier: 'front', env: 'prod' };

describe('label selectors', () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (db, web)', true],
    ['app notin (db,web)', false],
    ['app notin (db)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['app=web,tier=front,env in (prod)', true],
    ['app=web,tier=back', false],
    ['', true],
  ])('%s matches %s', (sel, want) => {
    expect(matchLabels(parseLabelSelector(sel), labels)).toBe(want);
  });

  it('rejects malformed selectors with a BadRequest', () => {
    expect(() => parseLabelSelector('app in (a')).toThrow(KubeApiError);
    expect(() => parseLabelSelector('a=b;c')).toThrow(/unable to parse requirement/);
  });
});

describe('field selectors', () => {
  const pod = { metadata: { name: 'p1', namespace: 'ns1' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
  it.each([
    ['metadata.name=p1', true],
    ['metadata.name!=p1', false],
    ['metadata.namespace==ns1,spec.nodeName=n1', true],
    ['spec.nodeName=n2', false],
    ['status.phase=Running', true],
    ['spec.nodeName=', false],
  ])('%s matches %s', (sel, want) => {
    expect(matchFields(parseFieldSelector(sel), pod)).toBe(want);
  });

  it('refuses unknown fields like the API server', () => {
    expect(() => parseFieldSelector('spec.foo=bar')).toThrow(/not a known field selector/);
  });
});
