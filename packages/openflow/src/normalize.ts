/** Canonical form of a Flow: what a switch gives back for it, so desired and installed flows compare equal. */
import { FIELD_BY_NAME, FIELDS } from './fields';
import type { Action, Flow, Match, Masked, ValueFieldName } from './flow';
import { bigToBytes, bytesToBig, bytesToValue, isMasked, valueToBytes } from './values';

function canon(name: ValueFieldName, v: Masked<unknown>): Masked<unknown> | undefined {
  const f = FIELD_BY_NAME.get(name)!;
  if (!isMasked(v)) return bytesToValue(f, valueToBytes(f, v, name));
  const full = (1n << BigInt(f.bits)) - 1n;
  const m = bytesToBig(valueToBytes(f, v.mask, name)) & ((1n << BigInt(f.bytes * 8)) - 1n);
  if (m === 0n) return undefined;
  const val = bytesToBig(valueToBytes(f, v.value, name)) & m;
  const value = bytesToValue(f, bigToBytes(val, f.bytes));
  if ((m & full) === full) return value;
  return { value, mask: bytesToValue(f, bigToBytes(m, f.bytes)) };
}

/**
 * Canonical match: masks applied and all-ones masks dropped, zero masks removed, addresses in
 * canonical text, xxregN split into the 32-bit regs OVS reports, and an empty ct_state removed.
 */
export function normalizeMatch(match: Match): Match {
  const out: Record<string, unknown> = {};
  const src = match as Record<string, unknown>;
  for (const f of FIELDS) {
    const v = src[f.name];
    if (v === undefined) continue;
    if (f.name === 'ctState') {
      if (Object.keys(v as object).length) out.ctState = { ...(v as object) };
      continue;
    }
    if (f.name.startsWith('xxreg')) {
      const n = Number(f.name.slice(5));
      const value = isMasked(v as Masked<bigint>) ? (v as { value: bigint }).value : (v as bigint);
      const mask = isMasked(v as Masked<bigint>) ? (v as { mask: bigint }).mask : (1n << 128n) - 1n;
      for (let i = 0; i < 4; i++) {
        const shift = BigInt(96 - 32 * i);
        const mw = Number((mask >> shift) & 0xffffffffn);
        if (mw === 0) continue;
        const vw = Number((value >> shift) & 0xffffffffn);
        const reg = `reg${n * 4 + i}` as ValueFieldName;
        out[reg] = canon(reg, mw === 0xffffffff ? vw : { value: vw, mask: mw });
      }
      continue;
    }
    const c = canon(f.name as ValueFieldName, v as Masked<unknown>);
    if (c !== undefined) out[f.name] = c;
  }
  return out as Match;
}

function normalizeAction(a: Action): Action {
  switch (a.type) {
    case 'setField':
      return { ...a, value: canon(a.field, a.value as Masked<unknown>) } as Action;
    case 'note': {
      // On the wire a note is zero-padded to 6 + 8k bytes; the switch reports the padding.
      let n = Math.max(6, a.data.length);
      while ((n + 10) % 8 !== 0) n++;
      const data = new Uint8Array(n);
      data.set(a.data);
      return { type: 'note', data };
    }
    case 'controller':
      if (a.userdata === undefined && !a.pause && a.meterId === undefined && (a.reason ?? 'action') === 'action' && !a.id) {
        return { type: 'output', port: 'CONTROLLER', maxLen: a.maxLen ?? 65535 };
      }
      return a;
    case 'ct':
      return a.exec ? { ...a, exec: a.exec.map(normalizeAction) } : a;
    case 'writeActions':
      return { ...a, actions: a.actions.map(normalizeAction) };
    default:
      return a;
  }
}

/** Canonical flow (see {@link normalizeMatch}); stats and flow-mod-only attributes are kept. */
export function normalizeFlow(flow: Flow): Flow {
  return { ...flow, match: normalizeMatch(flow.match), actions: flow.actions.map(normalizeAction) };
}
