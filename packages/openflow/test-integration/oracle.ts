/** ovs-ofctl as an independent decoder of our bytes (Debian openvswitch-common). */
import { execFileSync } from 'node:child_process';

/** `ovs-ofctl ofp-print <hex>` output, trimmed. */
export function ofpPrint(hex: string): string {
  return execFileSync('ovs-ofctl', ['ofp-print', hex], { encoding: 'utf8' }).trim();
}

/** The flow text of an ofp-print'ed FLOW_MOD (after `ADD `). */
export function flowModText(printed: string): string {
  const m = /\): (?:ADD|MOD|MOD_STRICT|DEL|DEL_STRICT) (.*)$/s.exec(printed);
  if (!m) throw new Error(`not a flow mod: ${printed}`);
  return m[1]!.replace(/\n/g, ' ');
}

/** `ovs-ofctl parse-actions <version>` of hex-encoded actions: the actions as ovs-ofctl reads them. */
export function parseActionsWithOvs(version: string, hex: string): string {
  return execFileSync('ovs-ofctl', ['parse-actions', version], { input: hex + '\n', encoding: 'utf8' }).trim();
}
