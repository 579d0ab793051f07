// IPv4 text as the agent hands it to `ip`, iptables and the flows: canonical dotted quads, read
// with ipam's Ip (so what is checked here is what the rest of the agent parses).
import { parseIp, type Ip } from '@switchyard/ipam/cidr';

/** The address when `text` is an IPv4 address in canonical dotted-quad form, else undefined. */
export function ipv4Of(text: string | undefined): Ip | undefined {
  if (text === undefined) return undefined;
  try {
    const ip = parseIp(text);
    return ip.family === 4 && ip.toString() === text ? ip : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `text` is `<IPv4 address>/<prefix length 0..32>` in canonical form. Host bits may be set
 * (an interface address such as `10.0.0.1/24`).
 */
export function isIpv4WithPrefix(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const prefix = text.slice(slash + 1);
  return ipv4Of(text.slice(0, slash)) !== undefined && /^(0|[1-9]\d?)$/.test(prefix) && Number(prefix) <= 32;
}
