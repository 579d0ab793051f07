/**
 * Which TrafficControls apply on this node and how, as the pipeline takes them: pure, from the
 * TrafficControl objects, the Namespaces' labels, this node's pods and the bridge ports.
 */
import type { TrafficControl, TrafficControlPort } from '@switchyard/apis/types';
import type { TrafficControlRule } from '@switchyard/openflow-pipeline';
import { matchesSelector } from '@switchyard/policy-compiler';

/** A pod of this node: its labels, and its bridge port once attached. */
export interface LocalPodFacts {
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  ofport?: number;
}

/** A TrafficControl port the agent can realize on this node: an OVS internal port or a host device, by name. */
export interface LocalPortRef {
  kind: 'ovsInternal' | 'device';
  name: string;
}

/** The port a TrafficControl names, when it is one this agent realizes; tunnel ports are not supported yet. */
export function localPort(p: TrafficControlPort | undefined): LocalPortRef | undefined {
  if (p?.ovsInternal) return { kind: 'ovsInternal', name: p.ovsInternal.name };
  if (p?.device) return { kind: 'device', name: p.device.name };
  return undefined;
}

/** Why a TrafficControl has no rule on this node (undefined: it has one). */
export function unsupported(tc: TrafficControl): string | undefined {
  if (!localPort(tc.spec.targetPort)) return 'targetPort: only ovsInternal and device ports are supported so far';
  if (tc.spec.action === 'Redirect' && !localPort(tc.spec.returnPort)) return 'returnPort: a Redirect needs an ovsInternal or device return port';
  return undefined;
}

/**
 * The pods a TrafficControl applies to, as Antrea selects them: by `podSelector` in every
 * Namespace, every pod of the Namespaces `namespaceSelector` selects, or both together; an empty
 * `appliedTo` selects nothing.
 */
export function appliesTo(tc: TrafficControl, pod: LocalPodFacts, namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>): boolean {
  const { podSelector, namespaceSelector } = tc.spec.appliedTo;
  if (!podSelector && !namespaceSelector) return false;
  if (podSelector && !matchesSelector(podSelector, pod.labels)) return false;
  return !namespaceSelector || matchesSelector(namespaceSelector, namespaceLabels.get(pod.namespace));
}

/**
 * The rules of the TrafficControls that have a supported target, in name order, each with the
 * ports of the attached local pods it selects (a rule with none has no flows, and is kept so its
 * target port stays). `ofportOf` gives the bridge port of a realized target or return port.
 */
export function trafficControlRules(
  tcs: readonly TrafficControl[],
  pods: readonly LocalPodFacts[],
  namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>,
  ofportOf: (port: LocalPortRef) => number | undefined,
): TrafficControlRule[] {
  const rules: TrafficControlRule[] = [];
  for (const tc of [...tcs].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))) {
    if (unsupported(tc)) continue;
    const targetOfport = ofportOf(localPort(tc.spec.targetPort)!);
    const ret = tc.spec.action === 'Redirect' ? ofportOf(localPort(tc.spec.returnPort)!) : undefined;
    if (targetOfport === undefined || (tc.spec.action === 'Redirect' && ret === undefined)) continue;
    const podOfports = pods.filter((p) => p.ofport !== undefined && appliesTo(tc, p, namespaceLabels)).map((p) => p.ofport!).sort((a, b) => a - b);
    rules.push({ name: tc.metadata.name ?? '', action: tc.spec.action, direction: tc.spec.direction, podOfports, targetOfport, ...(ret !== undefined ? { returnOfport: ret } : {}) });
  }
  return rules;
}
