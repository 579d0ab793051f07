/**
 * ovs-ofctl (Debian openvswitch-common) as an independent decoder of our bytes: it prints the
 * messages and flow-mods we encode, and reads back our OpenFlow 1.5 actions. An external tool, so
 * here rather than in the unit tests, which check the same tables against our own decoder.
 */
import { encodeActions, encodeMessage, normalizeFlow, parseFlow, toHex, type Action, type Flow } from '../src/codec';
import { LEARN_OF_MODEL } from '../test/fixtures/golden-actions-table';
import { MESSAGE_CASES } from '../test/fixtures/messages-table';
import { ROUNDTRIP } from '../test/fixtures/roundtrip-table';
import { flowModText, ofpPrint, parseActionsWithOvs } from './oracle';

function strip(f: Flow): Flow {
  const { stats: _s, ...rest } = f;
  return rest;
}

describe('messages: ovs-ofctl decodes what we encode', () => {
  it.each(MESSAGE_CASES)('%s', (_name, msg, printed) => {
    const out = ofpPrint(toHex(encodeMessage(msg, 0x42)));
    expect(out).toMatch(printed);
    expect(out).not.toMatch(/decode error|WARN/);
  });
});

describe('round-trip table', () => {
  it.each(ROUNDTRIP.map((r) => [r.name, r.flow] as const))('%s: ovs-ofctl decodes our flow-mod and its text parses back to the flow', (_name, flow) => {
    const printed = ofpPrint(toHex(encodeMessage({ type: 'flowMod', command: 'add', flow })));
    expect(printed).not.toMatch(/decode error|\bWARN\b/);
    expect(strip(parseFlow(flowModText(printed)))).toEqual(normalizeFlow(flow));
  });
});

describe('actions: ovs-ofctl parse-actions reads our OpenFlow 1.5 encoding', () => {
  it('our learn subset encoding is what ovs-ofctl itself would produce', () => {
    const [text, hex] = LEARN_OF_MODEL[0]!;
    expect(parseActionsWithOvs('OpenFlow15', hex)).toBe(`actions=${text}`);
  });

  it('conjunction clauses are 1-based in the model and text, 0-based on the wire', () => {
    const bytes = encodeActions([{ type: 'conjunction', id: 0x1234, clause: 2, nClauses: 3 }]);
    expect(parseActionsWithOvs('OpenFlow15', toHex(bytes))).toBe('actions=conjunction(4660,2/3)');
  });

  it('setField and copyField encode as OF1.5 set_field and copy_field', () => {
    const model: Action = { type: 'ct', commit: true, exec: [{ type: 'setField', field: 'ctMark', value: 0xf009 }] };
    expect(parseActionsWithOvs('OpenFlow15', toHex(encodeActions([model])))).toBe('actions=ct(commit,exec(set_field:0xf009->ct_mark))');
    // The OF1.5 golden row: move:NXM_OF_IN_PORT[]->NXM_OF_VLAN_TCI[] is a copy_field (type 28).
    expect(parseActionsWithOvs('OpenFlow15', toHex(encodeActions([{ type: 'copyField', src: { field: 'reg0', start: 0, end: 15 }, dst: { field: 'tcpDst' } }])))).toBe(
      'actions=move:NXM_NX_REG0[0..15]->NXM_OF_TCP_DST[]',
    );
    // copy_field between OXM basic fields (class 0x8000: the header's top bit is set).
    const swapMacs: Action = { type: 'copyField', src: { field: 'ethSrc' }, dst: { field: 'ethDst' } };
    expect(parseActionsWithOvs('OpenFlow15', toHex(encodeActions([swapMacs])))).toBe('actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]');
  });
});
