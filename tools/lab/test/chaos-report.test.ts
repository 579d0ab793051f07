// The chaos report's verdict: every reason a run fails is named, so a red CI run shows its cause
// in the assertion, and a clean report has none.
import { chaosFailures, formatChaosReport, recoveryStats, type ChaosReport } from '../src/index';

const clean = (): ChaosReport => ({
  seed: 1,
  durationMs: 120_000,
  faults: [{ kind: 'agent', target: 'node1', at: 4000, healthyMs: 900, recoveryMs: 1500, checked: { scenario: 'k8s-netpol/01.yaml', step: 1, cells: 36 } }],
  recovery: {},
  healthy: {},
  scenarios: { runs: 3, completed: 3, interrupted: [], abandoned: [], steps: 6, cells: 200, reprobed: 4 },
  disagreements: [],
  final: { scenario: 'k8s-netpol/01.yaml', cells: 36, disagreements: [] },
  leftovers: [],
  failures: [],
  ok: true,
});

describe('chaosFailures', () => {
  it('has no reason for a clean run', () => {
    expect(chaosFailures(clean())).toEqual([]);
  });

  it('names a fault that did not recover, with its kind, target, time and error', () => {
    const r = clean();
    r.faults.push({ kind: 'ovs-vswitchd', target: 'node2', at: 61_300, error: 'node2 flows put back: timed out after 60000 ms' });
    expect(chaosFailures(r)).toEqual(['fault 2 (ovs-vswitchd node2 at 61.3 s) not recovered: node2 flows put back: timed out after 60000 ms']);
  });

  it('names a fault without a recovery time even when it has no error', () => {
    const r = clean();
    r.faults[0] = { kind: 'pod', target: 'node1/chaos/churn-1', at: 2000 };
    expect(chaosFailures(r)).toEqual(['fault 1 (pod node1/chaos/churn-1 at 2.0 s) not recovered: no recovery time']);
  });

  it('names abandoned scenarios with their last errors, an empty run, wrong cells and leftovers', () => {
    const r = clean();
    r.scenarios = { ...r.scenarios, completed: 0, interrupted: [{ scenario: 'a.yaml', attempt: 3, error: 'webhook ECONNREFUSED' }, { scenario: 'b.yaml', attempt: 1, error: 'x' }], abandoned: ['a.yaml'] };
    r.disagreements = [{ scenario: 'a.yaml', step: 2, cell: 'x/a -> y/b TCP/80', expected: true, dataplane: false }];
    r.final = { scenario: 'a.yaml', cells: 0, disagreements: [] };
    r.leftovers = ['node1: OVS ports of no pod: veth1'];
    expect(chaosFailures(r)).toEqual([
      'scenarios never completed: a.yaml; their last errors: a.yaml attempt 3: webhook ECONNREFUSED',
      'no scenario completed (3 runs)',
      '1 cells disagreed after settling, first: a.yaml step 2 x/a -> y/b TCP/80 expected allowed, got false',
      'the clean final run of a.yaml probed no cell',
      'leftovers: node1: OVS ports of no pod: veth1',
    ]);
  });

  it('is printed by the table output under "failed because"', () => {
    const r = { ...clean(), ok: false, failures: ['no scenario completed (0 runs)'] };
    expect(formatChaosReport(r)).toContain('FAILED');
    expect(formatChaosReport(r)).toContain('failed because: \n  no scenario completed (0 runs)');
    expect(recoveryStats([3, 1, 2])).toEqual({ n: 3, p50: 2, p99: 3, max: 3 });
  });
});
