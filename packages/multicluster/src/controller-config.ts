// Pure: the mc-controller's MultiClusterConfig (ConfigMap antrea-mc-controller-config, key
// controller_manager_config.yaml) checked into typed options, each bad value named with its field.
import { isIP } from 'node:net';
import { MulticlusterError } from './errors';
import type { GatewayIPPrecedence } from './gateway';
import type { EndpointIPType } from './service-export';

/** The ConfigMap the guide's manifests deploy with the controller, and its key. */
export const CONTROLLER_CONFIGMAP = 'antrea-mc-controller-config';
export const CONTROLLER_CONFIG_KEY = 'controller_manager_config.yaml';

/** The keys of a MultiClusterConfig this controller uses (others, such as health or webhook, are ignored). */
export interface ControllerConfig {
  serviceCIDR?: string;
  /** A dual-stack member's IPv6 Service range (antrea-agent.conf's key name), exported in its ClusterInfo beside `serviceCIDR`. */
  serviceCIDRv6?: string;
  podCIDRs?: string[];
  gatewayIPPrecedence?: GatewayIPPrecedence;
  endpointIPType?: EndpointIPType;
  enableStretchedNetworkPolicy?: boolean;
}

/** The family of a CIDR's text (4 or 6), 0 when it is not one. */
function cidrFamily(v: string): 0 | 4 | 6 {
  const [ip, len, ...rest] = v.split('/');
  const family = isIP(ip ?? '');
  return rest.length === 0 && family !== 0 && len !== undefined && /^\d{1,3}$/.test(len) && Number(len) <= (family === 4 ? 32 : 128) ? (family as 4 | 6) : 0;
}
const isCidr = (v: string): boolean => cidrFamily(v) !== 0;

/**
 * The options in a parsed MultiClusterConfig document. Empty strings mean unset, as in Antrea's
 * manifests (`serviceCIDR: ""`, `podCIDRs: [""]`); `gatewayIPPrecedence` takes Antrea's `private`
 * / `public` and the guide's `internal` / `external`. `source` names the file or ConfigMap in errors.
 */
export function controllerConfigOf(doc: unknown, source: string): ControllerConfig {
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new MulticlusterError('INVALID_OPTION', `${source}: expected a MultiClusterConfig mapping, got ${JSON.stringify(doc)}`, source, doc);
  const d = doc as Record<string, unknown>;
  const bad = (field: string, value: unknown, want: string): MulticlusterError => new MulticlusterError('INVALID_OPTION', `${source}: ${field} must be ${want}, got ${JSON.stringify(value)}`, `${source}: ${field}`, value);
  const out: ControllerConfig = {};
  const sc = d['serviceCIDR'];
  if (sc !== undefined && sc !== null && sc !== '') {
    if (typeof sc !== 'string' || !isCidr(sc)) throw bad('serviceCIDR', sc, 'a CIDR such as 10.96.0.0/12');
    out.serviceCIDR = sc;
  }
  const sc6 = d['serviceCIDRv6'];
  if (sc6 !== undefined && sc6 !== null && sc6 !== '') {
    if (typeof sc6 !== 'string' || cidrFamily(sc6) !== 6) throw bad('serviceCIDRv6', sc6, 'an IPv6 CIDR such as fd00:10:96::/108');
    if (out.serviceCIDR !== undefined && cidrFamily(out.serviceCIDR) !== 4) throw bad('serviceCIDR', out.serviceCIDR, 'an IPv4 CIDR beside serviceCIDRv6 (a dual-stack cluster)');
    out.serviceCIDRv6 = sc6;
  }
  const pc = d['podCIDRs'];
  if (pc !== undefined && pc !== null) {
    if (!Array.isArray(pc)) throw bad('podCIDRs', pc, 'a list of CIDRs');
    const list: string[] = [];
    pc.forEach((c: unknown, i) => {
      if (c === '' || c === null) return;
      if (typeof c !== 'string' || !isCidr(c)) throw bad(`podCIDRs[${i}]`, c, 'a CIDR such as 10.244.0.0/16');
      list.push(c);
    });
    if (list.length > 0) out.podCIDRs = list;
  }
  const gp = d['gatewayIPPrecedence'];
  if (gp !== undefined && gp !== null && gp !== '') {
    const map: Record<string, GatewayIPPrecedence> = { internal: 'internal', private: 'internal', external: 'external', public: 'external' };
    const v = typeof gp === 'string' ? map[gp] : undefined;
    if (!v) throw bad('gatewayIPPrecedence', gp, 'private|internal or public|external');
    out.gatewayIPPrecedence = v;
  }
  const et = d['endpointIPType'];
  if (et !== undefined && et !== null && et !== '') {
    if (et !== 'ClusterIP' && et !== 'PodIP') throw bad('endpointIPType', et, 'ClusterIP or PodIP');
    out.endpointIPType = et;
  }
  const sn = d['enableStretchedNetworkPolicy'];
  if (sn !== undefined && sn !== null) {
    if (typeof sn !== 'boolean') throw bad('enableStretchedNetworkPolicy', sn, 'true or false');
    out.enableStretchedNetworkPolicy = sn;
  }
  return out;
}
