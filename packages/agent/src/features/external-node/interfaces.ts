/** Which host interface each ExternalNode interface names: by its name, else by the link holding its IPs. */
import type { ExternalNode } from '@switchyard/apis';
import { AgentError } from '../../errors';
import type { HostAddress } from './host-links';

/** An ExternalNode interface found on the host. */
export interface ResolvedInterface {
  /** The host interface (its original name, before any swap). */
  name: string;
  ips: string[];
}

/**
 * Resolves `en.spec.interfaces` against the host's links and their IPv4 addresses. `host` maps a
 * link name to its addresses; an interface swapped (or half-swapped) by an earlier run must appear
 * under its original name with its original addresses (the caller overlays the swap journal).
 * Throws `AgentError` `EXTERNAL_NODE_INTERFACE` naming the field and value that do not match.
 */
export function resolveInterfaces(en: ExternalNode, host: ReadonlyMap<string, readonly HostAddress[]>): ResolvedInterface[] {
  const ifaces = en.spec?.interfaces ?? [];
  const where = `ExternalNode ${en.metadata.namespace ?? ''}/${en.metadata.name ?? ''}`;
  if (ifaces.length === 0) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where} names no interface`, ifaces, 'spec.interfaces');
  const out: ResolvedInterface[] = [];
  ifaces.forEach((spec, i) => {
    const ips = spec.ips ?? [];
    const hasAll = (link: string) => ips.every((ip) => (host.get(link) ?? []).some((a) => a.ip === ip));
    let name = spec.name ?? '';
    if (name) {
      if (!host.has(name) || name.endsWith('~')) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: interface ${name} is not on this host`, name, `spec.interfaces[${i}].name`);
      const missing = ips.find((ip) => !(host.get(name) ?? []).some((a) => a.ip === ip));
      if (missing !== undefined) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: IP ${missing} is not on interface ${name}`, missing, `spec.interfaces[${i}].ips`);
    } else {
      if (ifaces.length > 1) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: with several interfaces every one needs a name`, spec, `spec.interfaces[${i}].name`);
      if (ips.length === 0) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: an interface without a name needs ips`, ips, `spec.interfaces[${i}].ips`);
      const found = [...host.keys()].find((l) => !l.endsWith('~') && hasAll(l));
      if (found === undefined) throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: no interface on this host has IP ${ips.join(', ')}`, ips.join(','), `spec.interfaces[${i}].ips`);
      name = found;
    }
    if (name === 'lo') throw new AgentError('EXTERNAL_NODE_INTERFACE', `${where}: the loopback interface cannot be guarded`, name, `spec.interfaces[${i}].name`);
    out.push({ name, ips: [...ips] });
  });
  return out;
}
