// Span counting and change recording on their own: reference counts per node, and what an event records.
import { ChangeRecorder, preSpan } from '../src/change-record';
import { groupOf, type GroupDef } from '../src/leaf';
import { EVERYTHING } from '../src/selector';
import { SpanCounter } from '../src/span';
import { NO_SPAN, NO_USERS, type GroupState, type PolicyState } from '../src/state';
import type { CompiledPolicy } from '../src/compile';
import type { ClusterObject } from '../src/types';

const def = (ns: string): GroupDef => groupOf([{ kind: 'pod', ns, sel: EVERYTHING }]);

function group(ns: string, nodes: string[]): GroupState {
  const d = def(ns);
  return { def: d, members: new Map(), byNode: new Map(nodes.map((n) => [n, new Map()])), addrUsers: NO_USERS, appliedUsers: NO_USERS, addrSpan: NO_SPAN };
}

function policy(key: string, address: GroupState[]): PolicyState {
  const compiled = { policy: { uid: key }, addressGroups: new Map(address.map((g) => [g.def.name, g.def])), appliedToGroups: new Map(), deps: new Set() } as unknown as CompiledPolicy;
  return { key, input: {} as ClusterObject, compiled, span: new Map() };
}

/** A span counter over hand-made groups and policies, as the membership and policy parts would drive it. */
function harness() {
  const groups = new Map<string, GroupState>();
  const policies = new Map<string, PolicyState>();
  const changes = new ChangeRecorder();
  const spans = new SpanCounter({ changes, group: (n) => groups.get(n), policy: (k) => policies.get(k) });
  /** Policy `key` applies `applied` and uses `address`, attached the way the policy table does it. */
  const attach = (key: string, applied: GroupState[], address: GroupState[]) => {
    const p = policy(key, address);
    policies.set(key, p);
    for (const g of [...applied, ...address]) groups.set(g.def.name, g);
    for (const g of applied) {
      g.appliedUsers = new Set([...g.appliedUsers, key]);
      spans.countApplied(p, g);
    }
    for (const g of address) {
      g.addrUsers = new Set([...g.addrUsers, key]);
      spans.countAddress(p, g);
    }
    return p;
  };
  /** `g` gains its first member on `node` / loses its last one there, as membership reports it. */
  const nodeAdded = (g: GroupState, node: string) => {
    g.byNode.set(node, new Map());
    spans.appliedNodeAdded(g, node);
  };
  const nodeRemoved = (g: GroupState, node: string) => {
    g.byNode.delete(node);
    spans.appliedNodeRemoved(g, node);
  };
  return { changes, spans, attach, nodeAdded, nodeRemoved };
}

describe('span counter', () => {
  it('spans a policy over the nodes of all its applied-to groups, and its address groups over the nodes of their policies', () => {
    const h = harness();
    const a1 = group('a1', ['n1']);
    const a2 = group('a2', ['n1', 'n2']);
    const addr = group('addr', []);
    const p = h.attach('p', [a1, a2], [addr]);
    expect([...p.span]).toEqual([['n1', 2], ['n2', 1]]);
    expect([...addr.addrSpan]).toEqual([['n1', 1], ['n2', 1]]);
    // A second policy on n3 using the same address group.
    const b = group('b', ['n3', 'n1']);
    h.attach('q', [b], [addr]);
    expect([...addr.addrSpan].sort()).toEqual([['n1', 2], ['n2', 1], ['n3', 1]]);
  });

  it('keeps a node while any applied-to group still has members there, and drops it from address groups with the last policy', () => {
    const h = harness();
    const a1 = group('a1', ['n1']);
    const a2 = group('a2', ['n1']);
    const addr = group('addr', []);
    const p = h.attach('p', [a1, a2], [addr]);
    h.nodeRemoved(a1, 'n1');
    expect(p.span.get('n1')).toBe(1);
    expect(addr.addrSpan.has('n1')).toBe(true);
    h.nodeRemoved(a2, 'n1');
    expect(p.span.has('n1')).toBe(false);
    expect(addr.addrSpan.has('n1')).toBe(false);
    h.nodeAdded(a2, 'n4');
    expect([...p.span.keys()]).toEqual(['n4']);
    expect([...addr.addrSpan.keys()]).toEqual(['n4']);
  });

  it('records each node entering or leaving a span once, with its presence before the event', () => {
    const h = harness();
    const a = group('a', ['n1']);
    const addr = group('addr', []);
    h.attach('p', [a], [addr]);
    h.changes.take();
    h.nodeAdded(a, 'n2');
    h.nodeRemoved(a, 'n2');
    h.nodeRemoved(a, 'n1');
    const rec = h.changes.take();
    expect([...(rec.policies.get('p')?.spanChanges ?? [])]).toEqual([['n2', false], ['n1', true]]);
    expect([...(rec.groups.get(addr.def.name)?.addrChanges ?? [])]).toEqual([['n2', false], ['n1', true]]);
    // The span before the event, rebuilt from the current span and the records: n1 only.
    expect(preSpan(addr.addrSpan, rec.groups.get(addr.def.name)?.addrChanges ?? new Map())).toEqual(['n1']);
  });
});

describe('change recorder', () => {
  it('records what a group was at its first touch and each member once, and nothing while not recording', () => {
    const touched: string[] = [];
    const changes = new ChangeRecorder({ onGroupTouched: (n) => touched.push(n) });
    const g = group('x', []);
    g.appliedUsers = new Set(['p']);
    const m1 = { m: { pod: { namespace: 'x', name: 'a' }, ips: ['10.0.0.1'] }, node: 'n1' };
    changes.memberChanging(g, 'p:x/a', null);
    changes.memberChanging(g, 'p:x/a', m1);
    g.appliedUsers = NO_USERS;
    changes.touchGroup(g);
    const rec = changes.take().groups.get(g.def.name);
    expect(rec?.wasApplied).toBe(true);
    expect([...(rec?.preMembers ?? [])]).toEqual([['p:x/a', null]]);
    changes.withoutRecording(() => changes.memberChanging(g, 'p:x/b', null));
    expect(changes.take().groups.size).toBe(0);
    // Read-side memos hear of every touch, recording or not.
    expect(touched).toEqual([g.def.name, g.def.name, g.def.name, g.def.name]);
  });

  it('keeps no member history for a group no node had before the event (it is sent whole)', () => {
    const changes = new ChangeRecorder();
    const g = group('x', []);
    changes.memberChanging(g, 'p:x/a', null);
    expect(changes.take().groups.get(g.def.name)?.preMembers.size).toBe(0);
  });
});
