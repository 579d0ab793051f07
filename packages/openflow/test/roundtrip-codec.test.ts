import { decodeMessage, encodeMessage, FIELDS, normalizeFlow, parseFlow, renderFlow, toHex, type Flow } from '../src/codec';
import { actionTags, REQUIRED_ACTION_TAGS, ROUNDTRIP } from './fixtures/roundtrip-table';
import { flowModText, ofpPrint } from './oracle';

function strip(f: Flow): Flow {
  const { stats: _s, ...rest } = f;
  return rest;
}

describe('round-trip table', () => {
  it('covers every match field, masked and unmasked, and every action variant', () => {
    const seen = new Set<string>();
    for (const { flow } of ROUNDTRIP) {
      for (const [k, v] of Object.entries(flow.match)) {
        seen.add(k);
        if (typeof v === 'object' && v !== null && 'mask' in v) seen.add(`${k}/masked`);
      }
    }
    const required = FIELDS.flatMap((f) => (f.maskable && f.name !== 'ctState' ? [f.name, `${f.name}/masked`] : [f.name]));
    expect(required.filter((r) => !seen.has(r))).toEqual([]);
    const tags = new Set(ROUNDTRIP.flatMap(({ flow }) => (flow.actions.length === 0 ? ['drop'] : flow.actions.flatMap((a) => actionTags(a)))));
    expect(REQUIRED_ACTION_TAGS.filter((t) => !tags.has(t))).toEqual([]);
  });

  it.each(ROUNDTRIP.map((r) => [r.name, r.flow] as const))('%s: encode, ofp-print, parse and decode agree', (_name, flow) => {
    const bytes = encodeMessage({ type: 'flowMod', command: 'add', flow });
    const expected = normalizeFlow(flow);
    // Our decoder reads our bytes back to the same flow.
    const decoded = decodeMessage(bytes);
    expect(decoded.type).toBe('flowMod');
    if (decoded.type === 'flowMod') expect(normalizeFlow(decoded.flow)).toEqual(expected);
    // ovs-ofctl decodes the same bytes; its text parses back to the same flow.
    const printed = ofpPrint(toHex(bytes));
    expect(printed).not.toMatch(/decode error|\bWARN\b/);
    expect(strip(parseFlow(flowModText(printed)))).toEqual(expected);
    // Our own text parses back too.
    expect(normalizeFlow(parseFlow(renderFlow(flow)))).toEqual(expected);
  });
});
