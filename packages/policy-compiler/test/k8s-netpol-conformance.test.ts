import { k8sNetpolCases } from './cases/k8s-netpol';
import { runCase } from './cases/runner';

describe('Kubernetes upstream netpol e2e model, evaluated through explain', () => {
  it('has at least 40 cases, several of them multi-step', () => {
    expect(k8sNetpolCases.length).toBeGreaterThanOrEqual(40);
    expect(k8sNetpolCases.filter((c) => c.steps.length > 1).length).toBeGreaterThanOrEqual(8);
  });
  it.each(k8sNetpolCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runCase(c)).toEqual([]);
  });
});
