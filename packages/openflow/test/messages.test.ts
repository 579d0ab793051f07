import fc from 'fast-check';
import { decodeMessage, encodeMessage, fromHex, OfDecodeError, toHex, type Flow, type OfMessage } from '../src/codec';
import { ofpPrint } from './oracle';

const flow: Flow = { table: 2, priority: 300, cookie: 0x77n, cookieMask: 0xffn, idleTimeout: 10, hardTimeout: 20, flags: ['send_flow_rem', 'check_overlap'], match: { ethType: 0x800, ipv4Dst: '10.0.0.1' }, actions: [{ type: 'output', port: 3 }] };

/** [message, what ovs-ofctl ofp-print must show] */
const CASES: Array<[string, OfMessage, RegExp]> = [
  ['hello with version bitmap', { type: 'hello', versions: [1, 4, 6] }, /OFPT_HELLO.*\n.*version bitmap: 0x01, 0x04, 0x06/],
  ['echo request', { type: 'echoRequest', data: fromHex('0102') }, /OFPT_ECHO_REQUEST \(OF1\.5\).*2 bytes of payload/s],
  ['echo reply', { type: 'echoReply', data: new Uint8Array(0) }, /OFPT_ECHO_REPLY \(OF1\.5\)/],
  ['features request', { type: 'featuresRequest' }, /OFPT_FEATURES_REQUEST \(OF1\.5\)/],
  ['features reply', { type: 'featuresReply', datapathId: 0xabcn, nBuffers: 0, nTables: 254, auxiliaryId: 0, capabilities: 0x4f }, /OFPT_FEATURES_REPLY \(OF1\.5\).*dpid:0000000000000abc.*n_tables:254/s],
  ['get config request', { type: 'getConfigRequest' }, /OFPT_GET_CONFIG_REQUEST/],
  ['get config reply', { type: 'getConfigReply', flags: 0, missSendLen: 128 }, /OFPT_GET_CONFIG_REPLY.*miss_send_len=128/s],
  ['set config', { type: 'setConfig', flags: 0, missSendLen: 0xffff }, /OFPT_SET_CONFIG.*miss_send_len=65535/s],
  ['barrier request', { type: 'barrierRequest' }, /OFPT_BARRIER_REQUEST \(OF1\.5\)/],
  ['barrier reply', { type: 'barrierReply' }, /OFPT_BARRIER_REPLY \(OF1\.5\)/],
  ['flow mod add', { type: 'flowMod', command: 'add', flow }, /ADD table:2 priority=300,ip,nw_dst=10\.0\.0\.1 cookie:0x77 idle:10 hard:20 send_flow_rem check_overlap actions=output:3/],
  ['flow mod modify', { type: 'flowMod', command: 'modify', flow }, /MOD table:2 .*actions=output:3/],
  ['flow mod modify strict', { type: 'flowMod', command: 'modifyStrict', flow }, /MOD_STRICT table:2 /],
  ['flow mod delete by cookie', { type: 'flowMod', command: 'delete', flow: { table: 255, priority: 0, cookie: 0x10n, cookieMask: 0xf0n, match: {}, actions: [] } }, /DEL .*cookie:0x10\/0xf0/],
  ['flow mod delete strict', { type: 'flowMod', command: 'deleteStrict', flow: { ...flow, actions: [] } }, /DEL_STRICT table:2 priority=300,ip,nw_dst=10\.0\.0\.1/],
  ['group mod select with weights', { type: 'groupMod', command: 'add', groupType: 'select', groupId: 7, buckets: [{ bucketId: 0, weight: 10, actions: [{ type: 'output', port: 1 }] }, { bucketId: 1, weight: 30, actions: [{ type: 'output', port: 2 }] }] }, /ADD group_id=7,type=select,bucket=bucket_id:0,weight:10,actions=output:1,bucket=bucket_id:1,weight:30,actions=output:2/],
  ['group mod all', { type: 'groupMod', command: 'add', groupType: 'all', groupId: 8, buckets: [{ bucketId: 0, actions: [{ type: 'output', port: 1 }] }, { bucketId: 1, actions: [{ type: 'output', port: 2 }] }] }, /group_id=8,type=all,bucket=bucket_id:0,actions=output:1,bucket=bucket_id:1,actions=output:2/],
  ['group mod indirect', { type: 'groupMod', command: 'modify', groupType: 'indirect', groupId: 9, buckets: [{ bucketId: 0, actions: [{ type: 'output', port: 4 }] }] }, /MOD group_id=9,type=indirect,bucket=bucket_id:0,actions=output:4/],
  ['meter mod', { type: 'meterMod', command: 'add', meterId: 3, flags: ['pktps', 'burst', 'stats'], bands: [{ type: 'drop', rate: 1000, burstSize: 100 }] }, /ADD meter=3 pktps burst stats bands=\s*type=drop rate=1000 burst_size=100/],
  ['port desc request', { type: 'multipartRequest', request: { kind: 'portDesc' } }, /OFPST_PORT_DESC request \(OF1\.5\)/],
  ['flow stats request', { type: 'multipartRequest', request: { kind: 'flow', table: 3, match: { ethType: 0x800 } } }, /OFPST_FLOW request \(OF1\.5\).* table=3 ip/],
  ['aggregate request', { type: 'multipartRequest', request: { kind: 'aggregate', cookie: 5n, cookieMask: 0xffn } }, /OFPST_AGGREGATE request \(OF1\.5\)/],
  ['table stats request', { type: 'multipartRequest', request: { kind: 'tableStats' } }, /OFPST_TABLE request \(OF1\.5\)/],
  ['port stats request', { type: 'multipartRequest', request: { kind: 'portStats', port: 2 } }, /OFPST_PORT request \(OF1\.5\).*port_no=2/],
  ['bundle open atomic ordered', { type: 'bundleControl', bundleId: 9, control: 'openRequest', flags: { atomic: true, ordered: true } }, /OFPT_BUNDLE_CONTROL.*bundle_id=0x9 type=OPEN_REQUEST flags=atomic ordered/s],
  ['bundle commit', { type: 'bundleControl', bundleId: 9, control: 'commitRequest', flags: { atomic: true } }, /type=COMMIT_REQUEST flags=atomic/],
  ['bundle add', { type: 'bundleAdd', bundleId: 9, flags: { atomic: true }, message: { type: 'flowMod', command: 'add', flow, xid: 0x42 } }, /OFPT_BUNDLE_ADD_MESSAGE.*bundle_id=0x9 flags=atomic\s+OFPT_FLOW_MOD \(OF1\.5\).*ADD table:2/s],
  ['packet out', { type: 'packetOut', inPort: 3, actions: [{ type: 'output', port: 'TABLE' }], data: new Uint8Array(60) }, /OFPT_PACKET_OUT \(OF1\.5\).*in_port=3 actions=TABLE data_len=60/s],
  ['set packet-in format', { type: 'setPacketInFormat', format: 'nxt2' }, /NXT_SET_PACKET_IN_FORMAT.*format=nxt_packet_in2/s],
  ['set controller id', { type: 'setControllerId', id: 12 }, /NXT_SET_CONTROLLER_ID.*id=12/s],
  ['role request', { type: 'roleRequest', role: 'master', generationId: 5n }, /OFPT_ROLE_REQUEST \(OF1\.5\).*role=(master|primary) generation_id=5/s],
  ['packet-in', { type: 'packetIn', bufferId: 0xffffffff, totalLen: 60, reason: 'action', tableId: 4, cookie: 0x9n, match: { inPort: 2 }, data: new Uint8Array(60) }, /OFPT_PACKET_IN \(OF1\.5\).*total_len=60 in_port=2 \(via action\) data_len=60/s],
  ['packet-in2 with userdata and continuation', { type: 'packetIn2', packet: new Uint8Array(60), reason: 'action', tableId: 4, cookie: 0x9n, metadata: { inPort: 2, reg0: 5 }, userdata: fromHex('0102') }, /NXT_PACKET_IN2.*cookie=0x9 total_len=60 reg0=0x5,in_port=2 \(via action\) data_len=60.*userdata=01\.02/s],
  ['error', { type: 'error', errType: 2, errCode: 9, typeName: '', codeName: '', data: new Uint8Array(0) }, /OFPT_ERROR \(OF1\.5\).*OFPBAC_BAD_OUT_GROUP/s],
];

describe('messages: ovs-ofctl decodes what we encode, and we decode it back', () => {
  it.each(CASES)('%s', (_name, msg, printed) => {
    const bytes = encodeMessage(msg, 0x42);
    const out = ofpPrint(toHex(bytes));
    expect(out).toMatch(printed);
    expect(out).not.toMatch(/decode error|WARN/);
    const back = decodeMessage(bytes);
    expect(back.xid).toBe(0x42);
    if (msg.type === 'error') {
      expect(back).toMatchObject({ type: 'error', typeName: 'OFPET_BAD_ACTION', codeName: 'OFPBAC_BAD_OUT_GROUP' });
    } else if (msg.type === 'flowMod' && (msg.command === 'delete' || msg.command === 'deleteStrict')) {
      expect(back).toMatchObject({ type: 'flowMod', command: msg.command });
    } else {
      expect(back).toEqual({ ...msg, xid: 0x42 });
    }
  });
});

describe('decoder robustness (fuzz)', () => {
  const valid = CASES.map(([, m]) => encodeMessage(m, 7));

  function decodeOrTypedError(b: Uint8Array): void {
    try {
      decodeMessage(b);
    } catch (e) {
      if (!(e instanceof OfDecodeError)) throw e;
    }
  }

  it('random bytes decode or fail with OfDecodeError, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.integer({ min: 0, max: 40 }), (b, type) => {
        const m = new Uint8Array(b);
        if (m.length >= 8) {
          m[0] = 6;
          m[1] = type;
          m[2] = m.length >> 8;
          m[3] = m.length & 0xff;
        }
        decodeOrTypedError(m);
      }),
      { numRuns: 3000 },
    );
  });

  it('truncated and bit-flipped valid messages decode or fail with OfDecodeError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: valid.length - 1 }), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }), (i, cut, pos, byte) => {
        const v = valid[i]!;
        const truncated = v.slice(0, cut % (v.length + 1));
        decodeOrTypedError(truncated);
        // Keep the header length consistent so the body parsers see the truncation.
        if (truncated.length >= 8) {
          truncated[2] = truncated.length >> 8;
          truncated[3] = truncated.length & 0xff;
          decodeOrTypedError(truncated);
        }
        const flipped = v.slice();
        flipped[pos % flipped.length] = byte;
        decodeOrTypedError(flipped);
      }),
      { numRuns: 5000 },
    );
  });
});
