// The controlplane view: initial state swapped in at the first BOOKMARK, patches, deletions,
// 410 resync, persistence round trip.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { controlplane } from '@switchyard/apis';
import { PolicyView, memberKey } from '@switchyard/controlplane-client';
import { loadPolicyView, savePolicyView } from '../src/features/policy/controller';

const pod = (name: string, ip: string): controlplane.GroupMember => ({ pod: { name, namespace: 'default' }, ips: [ip] });
const policy = (uid: string, generation = 1): controlplane.NetworkPolicy => ({
  uid, name: uid, namespace: 'default', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: uid, uid },
  rules: [], appliedToGroups: ['atg'], generation,
});
type E = controlplane.WatchEvent;
const ev = {
  policy: (type: E['type'], p: controlplane.NetworkPolicy, rv?: string): E => ({ type, kind: 'NetworkPolicy', object: p, ...(rv ? { resourceVersion: rv } : {}) }),
  ag: (name: string, members: controlplane.GroupMember[]): E => ({ type: 'ADDED', kind: 'AddressGroup', object: { name, groupMembers: members } }),
  agPatch: (name: string, added: controlplane.GroupMember[], removed: controlplane.GroupMember[], rv: string): E => ({
    type: 'MODIFIED', kind: 'AddressGroupPatch', object: { name, addedGroupMembers: added, removedGroupMembers: removed }, resourceVersion: rv,
  }),
  bookmark: (rv: string): E => ({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: rv } }),
  expired: (): E => ({ type: 'ERROR', kind: 'Status', object: { code: 410, reason: 'Expired', message: 'too old' } }),
};

describe('PolicyView', () => {
  it('buffers an initial stream and replaces the view at its first BOOKMARK', () => {
    const v = new PolicyView();
    v.beginStream('initial');
    expect(v.apply(ev.ag('ag1', [pod('a', '10.0.0.2')]))).toBe('buffered');
    expect(v.apply(ev.policy('ADDED', policy('p1')))).toBe('buffered');
    expect(v.snapshot().policies).toEqual([]);
    expect(v.synced).toBe(false);
    expect(v.apply(ev.bookmark('e.5'))).toBe('changed');
    expect(v.synced).toBe(true);
    expect(v.resourceVersion).toBe('e.5');
    expect(v.counts).toEqual({ policies: 1, addressGroups: 1, appliedToGroups: 0 });
    // A later initial stream (resync) drops what it does not repeat.
    v.beginStream('initial');
    v.apply(ev.policy('ADDED', policy('p2')));
    v.apply(ev.bookmark('f.1'));
    expect(v.snapshot().policies.map((p) => p.uid)).toEqual(['p2']);
    expect(v.counts.addressGroups).toBe(0);
  });

  it('applies incremental events of a resumed stream at once, remembering their resourceVersion', () => {
    const v = new PolicyView();
    v.beginStream('resume');
    expect(v.apply(ev.ag('ag1', [pod('a', '10.0.0.2'), pod('b', '10.0.0.3')]))).toBe('changed');
    expect(v.apply(ev.agPatch('ag1', [pod('c', '10.0.0.4')], [{ pod: { name: 'a', namespace: 'default' }, ips: ['10.0.0.2'] }], 'e.7'))).toBe('changed');
    expect(v.snapshot().addressGroups[0]!.groupMembers.map(memberKey).sort()).toEqual(['pod/default/b', 'pod/default/c']);
    expect(v.resourceVersion).toBe('e.7');
    expect(v.apply(ev.policy('ADDED', policy('p1')))).toBe('changed');
    expect(v.apply(ev.policy('MODIFIED', policy('p1', 2)))).toBe('changed');
    expect(v.snapshot().policies[0]!.generation).toBe(2);
    expect(v.apply(ev.policy('DELETED', policy('p1'), 'e.9'))).toBe('changed');
    expect(v.apply(ev.policy('DELETED', policy('p1')))).toBe('unchanged');
    expect(v.apply(ev.bookmark('e.10'))).toBe('unchanged');
    expect(v.resourceVersion).toBe('e.10');
  });

  it('forgets its resourceVersion on 410 Expired so the next watch starts from scratch', () => {
    const v = new PolicyView();
    v.beginStream('resume');
    v.apply(ev.policy('ADDED', policy('p1'), 'e.3'));
    expect(v.apply(ev.expired())).toBe('expired');
    expect(v.resourceVersion).toBe('');
    expect(v.counts.policies).toBe(1); // kept (and enforced) until the fresh initial state replaces it
  });

  it('memberKey identifies members by reference, else by their sorted addresses', () => {
    expect(memberKey({ ips: ['10.0.0.3', '10.0.0.2'] })).toBe(memberKey({ ips: ['10.0.0.2', '10.0.0.3'] }));
    expect(memberKey({ node: { name: 'n' }, ips: [] })).toBe('node/n');
    expect(memberKey({ externalEntity: { name: 'e', namespace: 'x' }, ips: ['1.1.1.1'] })).toBe('ee/x/e');
  });
});

describe('policy cache file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sy-npcache-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips the view, resourceVersion included, and counts as synced', () => {
    const v = new PolicyView();
    v.beginStream('resume');
    v.apply(ev.ag('ag1', [pod('a', '10.0.0.2')]));
    v.apply(ev.policy('ADDED', policy('p1'), 'e.4'));
    const file = join(dir, 'sub', 'cache.json');
    savePolicyView(file, v);
    const back = loadPolicyView(file);
    expect(back.toData()).toEqual(v.toData());
    expect(back.synced).toBe(true);
  });

  it('starts empty from a missing or corrupt file', () => {
    expect(loadPolicyView(join(dir, 'absent.json')).counts.policies).toBe(0);
    writeFileSync(join(dir, 'bad.json'), '{"policies": [');
    const warnings: unknown[] = [];
    const v = loadPolicyView(join(dir, 'bad.json'), { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (o) => warnings.push(o) });
    expect(v.counts.policies).toBe(0);
    expect(v.synced).toBe(false);
    expect(warnings).toHaveLength(1);
  });

  it('writes the cache 0600 through a temporary file, leaving nothing else in the directory', () => {
    const v = new PolicyView();
    v.beginStream('resume');
    v.apply(ev.policy('ADDED', policy('p1'), 'e.1'));
    const file = join(dir, 'cache.json');
    savePolicyView(file, v);
    v.apply(ev.policy('ADDED', policy('p2'), 'e.2'));
    savePolicyView(file, v);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['cache.json']);
    expect(loadPolicyView(file).counts.policies).toBe(2);
  });

  it('refuses a cache cut short at any length: an empty, unsynced view that the controller refills', () => {
    const v = new PolicyView();
    v.beginStream('resume');
    v.apply(ev.ag('ag1', [pod('a', '10.0.0.2'), pod('b', '10.0.0.3')]));
    v.apply(ev.policy('ADDED', policy('p1'), 'e.4'));
    const file = join(dir, 'cache.json');
    savePolicyView(file, v);
    const whole = readFileSync(file);
    const cut = join(dir, 'cut.json');
    const log = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (): void => undefined };
    for (let n = 0; n < whole.length; n++) {
      writeFileSync(cut, whole.subarray(0, n));
      const back = loadPolicyView(cut, log);
      expect({ n, policies: back.counts.policies, synced: back.synced }).toEqual({ n, policies: 0, synced: false });
    }
    expect(loadPolicyView(file, log).counts.policies).toBe(1);
  });
});
