import { decodeMessage, encodeMessage, FIELDS, normalizeFlow, parseFlow, renderFlow } from '../src/codec';
import { actionTags, REQUIRED_ACTION_TAGS, ROUNDTRIP } from './fixtures/roundtrip-table';

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

  // ovs-ofctl decoding the same bytes, its text parsed back: test-integration/ofctl-oracle.test.ts.
  it.each(ROUNDTRIP.map((r) => [r.name, r.flow] as const))('%s: encode, decode, render and parse agree', (_name, flow) => {
    const bytes = encodeMessage({ type: 'flowMod', command: 'add', flow });
    const expected = normalizeFlow(flow);
    // Our decoder reads our bytes back to the same flow.
    const decoded = decodeMessage(bytes);
    expect(decoded.type).toBe('flowMod');
    if (decoded.type === 'flowMod') expect(normalizeFlow(decoded.flow)).toEqual(expected);
    // Our own text parses back too.
    expect(normalizeFlow(parseFlow(renderFlow(flow)))).toEqual(expected);
  });
});
