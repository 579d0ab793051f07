// A failed realization (the switch refused the bundle or was away) is retried with backoff on the
// injected clock until one succeeds; nothing else may come to trigger it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PolicyView } from '@switchyard/controlplane-client';
import { ManualClock } from '@switchyard/runtime/testing';
import type { FlowSync } from '../src/flow-sync';
import { NetworkPolicyController, REALIZE_RETRY } from '../src/features/policy/controller';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-policy-retry-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A flow sync whose first `failures` calls are refused. */
function flows(failures: number): { sync: FlowSync; calls: () => number } {
  let n = 0;
  const sync = {
    set: async () => {
      n++;
      if (n <= failures) throw new Error('not connected to the switch');
      return { added: 0, modified: 0, deleted: 0 };
    },
  } as unknown as FlowSync;
  return { sync, calls: () => n };
}

it('retries a failed realization after the backoff, until it succeeds, and then stops retrying', async () => {
  const clock = new ManualClock();
  const f = flows(2);
  const c = new NetworkPolicyController({ nodeName: 'n1', flows: f.sync, view: new PolicyView(), cacheFile: join(dir, 'cache.json'), clock });
  await c.resync();
  expect(f.calls()).toBe(1);
  expect((c.lastError as Error).message).toBe('not connected to the switch');
  // Not before the first delay (at least 80% of initialMs with the jitter)...
  await clock.advanceAsync(REALIZE_RETRY.initialMs * 0.8 - 1);
  expect(f.calls()).toBe(1);
  // ...then once per delay, the second delay twice the first.
  await clock.advanceAsync(REALIZE_RETRY.initialMs * 0.2 + 1);
  await c.idle();
  expect(f.calls()).toBe(2);
  expect(c.lastError).toBeDefined();
  await clock.advanceAsync(REALIZE_RETRY.initialMs * 2);
  await c.idle();
  expect(f.calls()).toBe(3);
  expect(c.lastError).toBeUndefined();
  expect(c.syncs).toBe(1);
  await clock.advanceAsync(60_000);
  expect(f.calls()).toBe(3);
  await c.stop();
});

it('a stopped controller does not retry', async () => {
  const clock = new ManualClock();
  const f = flows(5);
  const c = new NetworkPolicyController({ nodeName: 'n1', flows: f.sync, view: new PolicyView(), cacheFile: join(dir, 'cache.json'), clock });
  await c.resync();
  await c.stop();
  await clock.advanceAsync(60_000);
  expect(f.calls()).toBe(1);
});

it('reports a policy realized again after a failure at the same generation (the controller held it Failed)', async () => {
  const clock = new ManualClock();
  // Realized, then the switch goes away (a resync fails), then it is back.
  let calls = 0;
  const sync = {
    set: async () => {
      calls++;
      if (calls === 2) throw new Error('not connected to the switch');
      return { added: 0, modified: 0, deleted: 0 };
    },
  } as unknown as FlowSync;
  const view = PolicyView.fromData({
    resourceVersion: '1',
    policies: [{ uid: 'p1', name: 'p1', namespace: 'default', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: 'p1', uid: 'p1' }, rules: [], appliedToGroups: ['atg'], generation: 3 }],
    addressGroups: [],
    appliedToGroups: [],
  });
  // A real client that is never started: only its status reports are recorded.
  const c = new NetworkPolicyController({ nodeName: 'n1', flows: sync, view, cacheFile: join(dir, 'cache.json'), clock, controlplane: { url: 'https://127.0.0.1:1' } });
  const reports: { generation: number; failed: boolean }[] = [];
  jest.spyOn(c.client!, 'reportStatus').mockImplementation(async (s) => {
    for (const n of s.nodes ?? []) reports.push({ generation: n.generation, failed: n.realizationFailure === true });
  });
  await c.resync();
  expect(reports).toEqual([{ generation: 3, failed: false }]);
  await c.resync();
  expect(reports).toEqual([{ generation: 3, failed: false }, { generation: 3, failed: true }]);
  await clock.advanceAsync(REALIZE_RETRY.initialMs * 2);
  await c.idle();
  expect(c.lastError).toBeUndefined();
  expect(reports).toEqual([{ generation: 3, failed: false }, { generation: 3, failed: true }, { generation: 3, failed: false }]);
  // Realized and reported: a later resync reports nothing new.
  await c.resync();
  expect(reports).toHaveLength(3);
  await c.stop();
});

it('sends a status report the controller refused again after the backoff, until it is acknowledged, with no new realization', async () => {
  const clock = new ManualClock();
  let sets = 0;
  const sync = { set: async () => (sets++, { added: 0, modified: 0, deleted: 0 }) } as unknown as FlowSync;
  const view = PolicyView.fromData({
    resourceVersion: '1',
    policies: [{ uid: 'p1', name: 'p1', namespace: 'default', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: 'p1', uid: 'p1' }, rules: [], appliedToGroups: ['atg'], generation: 2 }],
    addressGroups: [],
    appliedToGroups: [],
  });
  const c = new NetworkPolicyController({ nodeName: 'n1', flows: sync, view, cacheFile: join(dir, 'cache.json'), clock, controlplane: { url: 'https://127.0.0.1:1' } });
  // The controller refuses the first three reports (e.g. its access review to the API server failed).
  let attempts = 0;
  const acknowledged: number[] = [];
  jest.spyOn(c.client!, 'reportStatus').mockImplementation(async (s) => {
    if (++attempts <= 3) throw new Error('status report for p1: HTTP 500');
    for (const n of s.nodes ?? []) acknowledged.push(n.generation);
  });
  await c.resync();
  // The realization's own report, then one immediate try of the retry loop: both refused.
  await Promise.resolve();
  await new Promise((r) => setImmediate(r));
  expect(attempts).toBe(2);
  expect(acknowledged).toEqual([]);
  expect((c.lastReportError as Error).message).toBe('1 status report(s) not acknowledged by the controller');
  await clock.advanceAsync(REALIZE_RETRY.initialMs);
  await new Promise((r) => setImmediate(r));
  expect(attempts).toBe(3);
  await clock.advanceAsync(REALIZE_RETRY.initialMs * 2);
  await new Promise((r) => setImmediate(r));
  expect(acknowledged).toEqual([2]);
  expect(c.lastReportError).toBeUndefined();
  // Acknowledged: nothing more is sent, and the flows were realized once.
  await clock.advanceAsync(60_000);
  expect(attempts).toBe(4);
  expect(sets).toBe(1);
  await c.stop();
});
