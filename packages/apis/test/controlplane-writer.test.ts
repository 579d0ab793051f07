import fc from 'fast-check';
import {
  encodeAddressGroup,
  encodeAgentInfo,
  encodeAppliedToGroup,
  encodeNetworkPolicy,
  encodeNetworkPolicyStatus,
  encodeWatchEvent,
  encodeWatchEventFrame,
  proto,
  WatchEventEncoder,
} from '../src/index';
import type { controlplane as cp } from '../src/index';
import { messageToProto } from '../src/controlplane-codec';
import * as arb from './support/arbitraries';

const pb = proto.controlplane.v1;
type Generated = { encode(m: never): { finish(): Uint8Array } };
/** What protobufjs' generated encoder makes of the converted message: the reference bytes. */
const generated = (type: keyof typeof pb, v: unknown): string =>
  Buffer.from((pb[type] as unknown as Generated).encode(messageToProto(type, v) as never).finish()).toString('hex');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('encoding straight from the TS model', () => {
  const cases: [keyof typeof pb, fc.Arbitrary<unknown>, (v: never) => Uint8Array][] = [
    ['NetworkPolicy', arb.networkPolicy, encodeNetworkPolicy],
    ['AddressGroup', arb.addressGroup, encodeAddressGroup],
    ['AppliedToGroup', arb.appliedToGroup, encodeAppliedToGroup],
    ['NetworkPolicyStatus', arb.networkPolicyStatus, encodeNetworkPolicyStatus],
    ['AgentInfo', arb.agentInfo, encodeAgentInfo],
    ['WatchEvent', arb.watchEvent, encodeWatchEvent],
  ];
  test.each(cases)('%s: the bytes of the generated encoder fed the converted message', (type, a, enc) => {
    fc.assert(
      fc.property(a, (v) => {
        expect(hex(enc(v as never))).toBe(generated(type, v));
      }),
      { numRuns: 200 },
    );
  });

  test('non-ASCII text, negative and large integers, doubles and IPv6 come out as the generated encoder writes them', () => {
    const policy: cp.NetworkPolicy = {
      uid: 'ü-1',
      name: 'política-😀',
      namespace: 'ns',
      sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: '政策', uid: 'u' },
      rules: [
        {
          direction: 'Out',
          from: { addressGroups: [], ipBlocks: [] },
          to: { addressGroups: ['g'], ipBlocks: [{ cidr: 'fd00::/8', except: ['fd00::1/128', '0.0.0.0/0'] }], labelIdentities: [0, 1, 0xffffffff] },
          services: [{ protocol: 'ICMP', icmpType: 0, icmpCode: -1 }, { protocol: 'TCP', port: 0 }, { protocol: 'UDP', port: '' }],
          action: 'Drop',
          priority: -5,
          enableLogging: true,
          logLabel: '',
        },
      ],
      appliedToGroups: [],
      priority: -1.5e-7,
      tierPriority: -2147483648,
      appliedToPerRule: false,
      policyTypes: [],
      generation: Number.MAX_SAFE_INTEGER,
    };
    expect(hex(encodeNetworkPolicy(policy))).toBe(generated('NetworkPolicy', policy));
    const status: cp.NetworkPolicyStatus = { name: 'n', nodes: [{ nodeName: 'ñ', generation: -3, realizationFailure: false, message: '\u{10ffff}\uffff' }] };
    expect(hex(encodeNetworkPolicyStatus(status))).toBe(generated('NetworkPolicyStatus', status));
  });

  test('WatchEventEncoder writes an event or a frame at the offset it is given, and nothing else', () => {
    fc.assert(
      fc.property(arb.watchEvent, fc.boolean(), fc.nat(64), (e, framed, offset) => {
        const encoder = new WatchEventEncoder();
        const size = encoder.prepare(e, framed);
        const target = new Uint8Array(offset + size + 8).fill(0xee);
        expect(encoder.writeTo(target, offset)).toBe(offset + size);
        expect(hex(target.subarray(offset, offset + size))).toBe(hex(framed ? encodeWatchEventFrame(e) : encodeWatchEvent(e)));
        expect(target.subarray(0, offset).every((b) => b === 0xee) && target.subarray(offset + size).every((b) => b === 0xee)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  test('WatchEventEncoder refuses an invalid event at prepare, with its field path, and writes only a prepared one', () => {
    const encoder = new WatchEventEncoder();
    const bad = { type: 'ADDED', kind: 'AddressGroup', object: { name: 'g', groupMembers: [{ ips: ['10.0.0.256'] }] } } as cp.WatchEvent;
    expect(() => encoder.prepare(bad)).toThrow(expect.objectContaining({ code: 'INVALID_IP', path: 'object.groupMembers[0].ips[0]', value: '10.0.0.256' }));
    expect(() => encoder.writeTo(new Uint8Array(64), 0)).toThrow(/without a prepared event/);
  });
});
