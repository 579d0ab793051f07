// IPv6 text as the agent hands it to `ip`, switchyard-netns and CNI results: RFC 5952 form, read
// with ipam's Ip (the IPv6 side of ipv4.ts).
import { parseIp, type Ip } from '@switchyard/ipam/cidr';

/** The address when `text` is an IPv6 address in RFC 5952 form (as ipam prints it), else undefined. */
export function ipv6Of(text: string | undefined): Ip | undefined {
  if (text === undefined) return undefined;
  try {
    const ip = parseIp(text);
    return ip.family === 6 && ip.toString() === text ? ip : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `text` is `<IPv6 address>/<prefix length 0..128>` in canonical form (host bits may be set). */
export function isIpv6WithPrefix(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const prefix = text.slice(slash + 1);
  return ipv6Of(text.slice(0, slash)) !== undefined && /^(0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= 128;
}
