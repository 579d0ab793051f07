/** What the agent API's `GET /services` reports of the Service ports this node realises (pure; `yardctl get service`). */
import type { ServicePortSpec } from '@switchyard/openflow-pipeline';
import type { HealthCheckPort } from './services';

/**
 * One Service port as realised on this node: its pipeline spec unchanged (the select group
 * `groupId` has one bucket per endpoint; `localGroupId`, with a Local policy, one per `local`
 * endpoint), plus the names the spec does not carry and the Service's health-check node port.
 */
export interface ServicePortInfo extends ServicePortSpec {
  namespace: string;
  name: string;
  /** `spec.ports[].name` ('' for an unnamed port). */
  portName: string;
  /** `spec.healthCheckNodePort` of an `externalTrafficPolicy: Local` LoadBalancer Service. */
  healthCheckNodePort?: number;
  /** Whether this node answers on `healthCheckNodePort` now (a port taken by another process is not). */
  healthCheckServed?: boolean;
}

/** What {@link servicePortInfos} reads of the services part. */
export interface ServicePortSources {
  /** The Service ports currently realised (`ServiceController.specs`). */
  specs: readonly ServicePortSpec[];
  /** Group ids by Service port key `ns/name/portName/protocol[/local]` (`ServiceController.groups()`). */
  groups: readonly (readonly [string, number])[];
  /** Health-check node ports wanted (`ServiceController.healthChecks`). */
  healthChecks: readonly HealthCheckPort[];
  /** Health-check node ports served now (`ServiceHostNetwork.healthChecks()`). */
  served: readonly HealthCheckPort[];
}

/** The specs with their Service's namespace, name and port name, and its health-check node port; in the specs' order. */
export function servicePortInfos(src: ServicePortSources): ServicePortInfo[] {
  // The port name is only in the group id's key; a key's parts never contain '/' (DNS labels).
  const keyOfGroup = new Map(src.groups.map(([k, id]) => [id, k]));
  const served = new Set(src.served.map((h) => h.port));
  return src.specs.map((s) => {
    const [kns = '', kname = '', portName = ''] = keyOfGroup.get(s.groupId)?.split('/') ?? [];
    const [namespace, name] = s.service !== undefined ? (s.service.split('/', 2) as [string, string]) : [kns, kname];
    const hc = src.healthChecks.find((h) => h.service === `${namespace}/${name}`);
    return {
      namespace,
      name,
      portName,
      ...s,
      ...(hc ? { healthCheckNodePort: hc.port, healthCheckServed: served.has(hc.port) } : {}),
    };
  });
}
