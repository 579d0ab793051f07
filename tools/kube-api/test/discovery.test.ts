// /apis lists groups in kube-apiserver's order: kubectl resolves a resource name several groups
// serve (networkpolicies: networking.k8s.io and an aggregated controlplane group) to the first.
import { apiGroupList } from '../src/discovery';
import { ResourceRegistry } from '../src/registry';

describe('APIGroupList order', () => {
  const reg = new ResourceRegistry();
  reg.registerCrd({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.aaa.example.io' },
    spec: { group: 'aaa.example.io', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
  const names = (aggregated: Parameters<typeof apiGroupList>[1]): string[] => (apiGroupList(reg, aggregated).groups as { name: string }[]).map((g) => g.name);

  it('puts built-in groups first, by their priority (apps before networking.k8s.io before discovery.k8s.io)', () => {
    const n = names([]);
    expect(n.indexOf('apps')).toBeLessThan(n.indexOf('networking.k8s.io'));
    expect(n.indexOf('networking.k8s.io')).toBeLessThan(n.indexOf('discovery.k8s.io'));
    // A CRD group ranks at 1000, after every built-in group, even when its name sorts first.
    expect(n.indexOf('discovery.k8s.io')).toBeLessThan(n.indexOf('aaa.example.io'));
  });

  it('ranks an aggregated group by its APIService groupPriorityMinimum', () => {
    const n = names([{ group: 'controlplane.switchyard.io', versions: ['v1beta2'], priority: 100 }, { group: 'metrics.example.io', versions: ['v1'], priority: 20000 }]);
    expect(n[0]).toBe('metrics.example.io');
    expect(n.indexOf('networking.k8s.io')).toBeLessThan(n.indexOf('controlplane.switchyard.io'));
    expect(n.indexOf('aaa.example.io')).toBeLessThan(n.indexOf('controlplane.switchyard.io'));
  });
});
