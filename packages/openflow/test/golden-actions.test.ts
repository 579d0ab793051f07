/**
 * Golden bytes from Open vSwitch's tests/ofp-actions.at (OpenFlow 1.0/1.3/1.5 action translation).
 * Nicira actions are version-independent, so our encoder must reproduce them byte for byte. Where
 * the .at file shows NXAST_REG_LOAD/REG_MOVE (OpenFlow 1.0), OpenFlow 1.5 uses set_field/copy_field:
 * we decode the NX form to the same model; `ovs-ofctl parse-actions` checks our OF1.5 form in
 * test-integration/ofctl-oracle.test.ts.
 */
import { decodeActions, encodeActions, fromHex, renderActions, toHex, type Action } from '../src/codec';
import { GOLDEN, LEARN_OF_MODEL } from './fixtures/golden-actions-table';

describe('golden Nicira action bytes from ovs tests/ofp-actions.at', () => {
  it.each(GOLDEN.filter(([t]) => !t.startsWith('learn')).concat(LEARN_OF_MODEL))('%s', (text, hex, action) => {
    const bytes = fromHex(hex);
    expect(toHex(encodeActions([action]))).toBe(toHex(bytes));
    expect(decodeActions(bytes)).toEqual([action]);
    expect(renderActions([action])).toBe(text);
  });

  it('the learn row with NXM_OF_VLAN_TCI is rejected by name rather than misread', () => {
    const row = GOLDEN.find(([t]) => t.startsWith('learn'))!;
    expect(() => decodeActions(fromHex(row[1]))).toThrow(/unknown field header 0x802/);
  });

  it('conjunction clauses are 1-based in the model and text, 0-based on the wire', () => {
    const bytes = encodeActions([{ type: 'conjunction', id: 0x1234, clause: 2, nClauses: 3 }]);
    expect(toHex(bytes)).toBe('ffff001000002320002201030000' + '1234');
  });

  it('OF1.0 NX reg_load/reg_move decode to setField/copyField; OF1.5 encodes them as set_field/copy_field', () => {
    // ct(commit,exec(load:0xf009->NXM_NX_CT_MARK[])) as in ofp-actions.at (NXAST_REG_LOAD inside ct).
    const nx = fromHex('ffff 0030 00002320 0023 0001 00000000 0000 FF 000000 0000 ffff 0018 00002320 0007 001f 0001d604 000000000000f009');
    const model: Action = { type: 'ct', commit: true, exec: [{ type: 'setField', field: 'ctMark', value: 0xf009 }] };
    expect(decodeActions(nx)).toEqual([model]);
    // load:0->NXM_NX_CT_LABEL[64..127],load:0x1d->NXM_NX_CT_LABEL[0..63]
    const labels = fromHex('ffff 0048 00002320 0023 0001 00000000 0000 FF 000000 0000 ffff 0018 00002320 0007 103f 0001d810 0000 0000 0000 0000 ffff 0018 00002320 0007 003f 0001d810 0000 0000 0000 001d');
    expect(decodeActions(labels)).toEqual([
      {
        type: 'ct',
        commit: true,
        exec: [
          { type: 'setField', field: 'ctLabel', value: { value: 0n, mask: 0xffffffffffffffffn << 64n } },
          { type: 'setField', field: 'ctLabel', value: { value: 0x1dn, mask: 0xffffffffffffffffn } },
        ],
      },
    ]);
    // copy_field between OXM basic fields (class 0x8000: the header's top bit is set) decodes back.
    const swapMacs: Action = { type: 'copyField', src: { field: 'ethSrc' }, dst: { field: 'ethDst' } };
    const swapBytes = encodeActions([swapMacs]);
    expect(decodeActions(swapBytes)).toEqual([swapMacs]);
    // set_field with a mask (OVS's reg_load2 equivalent) in OF1.5: the .at row for eth_src.
    expect(toHex(encodeActions([{ type: 'setField', field: 'ethSrc', value: { value: '00:00:00:00:12:34', mask: '00:00:00:00:ff:ff' } }]))).toBe(
      toHex(fromHex('0019 0018 8000090c 000000001234 00000000ffff 00000000')),
    );
    expect(toHex(encodeActions([{ type: 'meter', id: 5 }]))).toBe('001d000800000005');
    expect(toHex(encodeActions([{ type: 'output', port: 'LOCAL', maxLen: 1234 }]))).toBe(toHex(fromHex('0000 0010 fffffffe 04d2 000000000000')));
  });
});
