/**
 * Egress bandwidth (`spec.bandwidth`, Antrea's EgressTrafficShaping), pure: the meter each Egress
 * this node SNATs gets (one per Egress, shared by all its members, its id the Egress's mark, as
 * Antrea's), the rules naming it, and the record a restarted agent adopts the meters from.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Egress } from '@switchyard/apis/types';
import type { EgressRule } from '@switchyard/openflow-pipeline';
import type { MeterConfig } from '../../meter-table';
import type { EgressProblem } from './rules';

/** One Egress's limit as OVS takes it: kbit/s and a burst in kbit (Antrea divides the quantities by 1000). */
export interface EgressBandwidth {
  rateKbps: number;
  burstKbit: number;
}

const SUFFIX: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const QUANTITY = /^\+?(\d+(?:\.\d*)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** A Kubernetes quantity's value, rounded up to an integer as `Quantity.Value()` does; undefined when it is none. */
export function quantityValue(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  return Math.ceil(Number(m[1]) * SUFFIX[m[2] ?? '']! - 1e-9);
}

/** The OpenFlow meter of a limit: kbit/s with a burst, one drop band (Antrea's flags, plus stats for `dump-meters`). */
export function meterConfig(b: EgressBandwidth): MeterConfig {
  return { flags: ['kbps', 'burst', 'stats'], bands: [{ type: 'drop', rate: b.rateKbps, burstSize: b.burstKbit }] };
}

/**
 * The meters of the Egresses this node SNATs (by id, the rule's mark) and the problems of the
 * bandwidths it cannot take. A bandwidth that does not parse, or whose rate is under 1 kbit/s, is
 * left out (the Egress is not limited) with a problem naming the field and the value.
 */
export function egressMeters(rules: readonly EgressRule[], egresses: readonly Egress[]): { meters: Map<number, EgressBandwidth>; problems: EgressProblem[] } {
  const byName = new Map(egresses.map((e) => [e.metadata.name ?? '', e]));
  const meters = new Map<number, EgressBandwidth>();
  const problems: EgressProblem[] = [];
  for (const r of rules) {
    const bw = byName.get(r.name)?.spec?.bandwidth;
    if (!r.local || r.mark === undefined || !bw) continue;
    const rate = typeof bw.rate === 'string' ? quantityValue(bw.rate) : undefined;
    const burst = typeof bw.burst === 'string' ? quantityValue(bw.burst) : undefined;
    const bad = (field: string, value: unknown, why: string): void => void problems.push({ egress: r.name, message: `spec.bandwidth.${field}: Invalid value: ${JSON.stringify(value)}: ${why}; the Egress is not limited` });
    if (rate === undefined) bad('rate', bw.rate, 'not a quantity');
    else if (burst === undefined) bad('burst', bw.burst, 'not a quantity');
    else if (Math.floor(rate / 1000) < 1) bad('rate', bw.rate, 'under 1 kbit/s, the least an OVS meter takes');
    else meters.set(r.mark, { rateKbps: Math.floor(rate / 1000), burstKbit: Math.floor(burst / 1000) });
  }
  return { meters, problems };
}

/** The rules with the meter of each limited Egress. */
export function withMeters(rules: readonly EgressRule[], meters: ReadonlyMap<number, EgressBandwidth>): EgressRule[] {
  return rules.map((r) => (r.local && r.mark !== undefined && meters.has(r.mark) ? { ...r, meter: r.mark } : r));
}

/** The meters recorded beside the Egress slice (`meters` of `<dataDir>/egress/spec.json`); none when there is no readable record. */
export function readRecordedMeters(file: string): Map<number, EgressBandwidth> {
  if (!existsSync(file)) return new Map();
  try {
    const rec = JSON.parse(readFileSync(file, 'utf8')) as { meters?: unknown };
    if (!Array.isArray(rec.meters)) return new Map();
    const out = new Map<number, EgressBandwidth>();
    for (const m of rec.meters as unknown[]) {
      const [id, b] = Array.isArray(m) ? (m as [unknown, Partial<EgressBandwidth> | undefined]) : [];
      if (typeof id === 'number' && typeof b?.rateKbps === 'number' && typeof b.burstKbit === 'number') out.set(id, { rateKbps: b.rateKbps, burstKbit: b.burstKbit });
    }
    return out;
  } catch {
    return new Map(); // an unreadable record is no record, as for the slice
  }
}
