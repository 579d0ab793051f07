// The generated reader (controlplane-reader.ts) against the path it replaced (protobufjs' generated
// decoder, then the conversion of its message objects): the same values, and the same errors for
// the same bad input, on the writer's random values, other valid encodings of them, edge cases and
// broken bytes.
import fc from 'fast-check';
import Long from 'long';
import type protobuf from 'protobufjs/minimal.js';
import {
  decodeAddressGroup,
  decodeAgentInfo,
  decodeAppliedToGroup,
  decodeNetworkPolicy,
  decodeNetworkPolicyStatus,
  decodeWatchEvent,
  encodeAddressGroup,
  encodeAgentInfo,
  encodeAppliedToGroup,
  encodeNetworkPolicy,
  encodeNetworkPolicyStatus,
  encodeWatchEvent,
  networkPolicyToProto,
  proto,
} from '../src/index';
import type { controlplane as cp } from '../src/index';
import { decodeWithMessages } from '../src/controlplane-codec';
import * as arb from './support/arbitraries';
import { concat, rng, variantOf } from './support/wire-variants';
import golden from './fixtures/controlplane-golden.json';

const pb = proto.controlplane.v1;
type Type = 'WatchEvent' | 'NetworkPolicy' | 'AddressGroup' | 'AppliedToGroup' | 'NetworkPolicyStatus' | 'AgentInfo';
const readers: Record<Type, (b: Uint8Array) => unknown> = {
  WatchEvent: decodeWatchEvent,
  NetworkPolicy: decodeNetworkPolicy,
  AddressGroup: decodeAddressGroup,
  AppliedToGroup: decodeAppliedToGroup,
  NetworkPolicyStatus: decodeNetworkPolicyStatus,
  AgentInfo: decodeAgentInfo,
};

/** What a decoder makes of `bytes`: the value, or the error's every public part. */
function outcome(decode: (b: Uint8Array) => unknown, bytes: Uint8Array): unknown {
  try {
    const value = decode(bytes);
    return { value, keys: JSON.stringify(value) }; // key order too
  } catch (e) {
    const { name, code, path, value, message } = e as { name: string; code: string; path: string; value: unknown; message: string };
    return { error: { name, code, path, value, message } };
  }
}

/** Both decoders give the same outcome for `bytes`; returns it. */
function same(type: Type, bytes: Uint8Array): unknown {
  const now = outcome(readers[type], bytes);
  expect(now).toStrictEqual(outcome((b) => decodeWithMessages(type, b), bytes));
  return now;
}

const cases: [Type, fc.Arbitrary<unknown>, (v: never) => Uint8Array][] = [
  ['WatchEvent', arb.watchEvent, encodeWatchEvent],
  ['NetworkPolicy', arb.networkPolicy, encodeNetworkPolicy],
  ['AddressGroup', arb.addressGroup, encodeAddressGroup],
  ['AppliedToGroup', arb.appliedToGroup, encodeAppliedToGroup],
  ['NetworkPolicyStatus', arb.networkPolicyStatus, encodeNetworkPolicyStatus],
  ['AgentInfo', arb.agentInfo, encodeAgentInfo],
];

describe('the generated reader gives what decode + conversion gave', () => {
  test.each(cases)('%s: the writer’s random values', (type, a, enc) => {
    fc.assert(
      fc.property(a, (v) => {
        expect(same(type, enc(v as never))).toEqual({ value: v, keys: expect.any(String) });
      }),
      { numRuns: 300 },
    );
  });

  test.each(cases)('%s: other valid encodings (unknown fields and groups, unpacked numbers, split messages, stale scalars, wrong wire types)', (type, a, enc) => {
    fc.assert(
      fc.property(a, fc.integer(), (v, seed) => {
        const bytes = variantOf(type, enc(v as never), rng(seed));
        expect(same(type, bytes)).toEqual({ value: v, keys: expect.any(String) });
      }),
      { numRuns: 300 },
    );
  });

  test('the golden frames, and as Buffers and as views into a larger buffer', () => {
    for (const { hex } of golden as { hex: string }[]) {
      const bytes = Buffer.from(hex, 'hex');
      same('WatchEvent', bytes);
      same('WatchEvent', new Uint8Array(bytes));
      const wide = new Uint8Array(bytes.length + 8).fill(0xff);
      wide.set(bytes, 4);
      same('WatchEvent', wide.subarray(4, 4 + bytes.length));
    }
  });

  test('edge values: empty lists, zero values, the ends of every integer range, IPv6 and IPv4-mapped addresses', () => {
    const policy: cp.NetworkPolicy = {
      uid: '',
      name: '',
      namespace: '',
      sourceRef: { type: 'BaselineAdminNetworkPolicy', namespace: '', name: '', uid: '' },
      rules: [
        {
          direction: 'In',
          from: { addressGroups: [], ipBlocks: [], fqdns: [], toServices: [], labelIdentities: [] },
          to: { addressGroups: [''], ipBlocks: [{ cidr: '::/0', except: ['::ffff:10.0.0.0/104', 'fd00::/128', '0.0.0.0/32'] }], labelIdentities: [0, 0x7fffffff, 0x80000000, 0xffffffff] },
          services: [{ protocol: 'TCP', port: 0, endPort: 0, srcPort: -2147483648, srcEndPort: 2147483647, icmpType: -1, groupAddress: 'ff02::1:ff00:0' }, { protocol: 'UDP', port: '' }],
          priority: -2147483648,
          enableLogging: false,
          logLabel: '',
          appliedToGroups: [],
          name: '',
        },
      ],
      appliedToGroups: [],
      priority: -0,
      tierPriority: 0,
      appliedToPerRule: false,
      policyTypes: [],
      generation: Number.MAX_SAFE_INTEGER,
    };
    same('NetworkPolicy', encodeNetworkPolicy(policy));
    same('NetworkPolicy', encodeNetworkPolicy({ ...policy, generation: -Number.MAX_SAFE_INTEGER, priority: Number.MAX_VALUE }));
    same('NetworkPolicyStatus', encodeNetworkPolicyStatus({ name: '', nodes: [{ nodeName: '', generation: 0 }, { nodeName: 'ß', generation: -1, realizationFailure: false, message: '' }] }));
    same('AgentInfo', encodeAgentInfo({ nodeName: '', version: '', nodeSubnets: [], networkPolicyNum: 0, addressGroupNum: 2147483647, appliedToGroupNum: 0, localPodNum: 0, flowTable: {}, conditions: [] }));
    same('AddressGroup', encodeAddressGroup({ name: 'g', groupMembers: [{ ips: [] }, { ips: ['::', '::1', '::ffff:1.2.3.4', '0.0.0.0', '255.255.255.255'], ports: [] }] }));
  });
});

/** Encode a message object with protobufjs (for bytes the writer refuses to produce). */
const encoded = (type: keyof typeof pb, m: unknown): Uint8Array => (pb[type] as unknown as { encode(m: unknown): protobuf.Writer }).encode(m).finish();
const basePolicy = (): ReturnType<typeof networkPolicyToProto> =>
  networkPolicyToProto({
    uid: 'u',
    name: 'n',
    namespace: 'ns',
    sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'np', uid: 'u' },
    rules: [{ direction: 'In', from: { addressGroups: ['g'], ipBlocks: [{ cidr: '10.0.0.0/8', except: [] }] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 0, enableLogging: false }],
    appliedToGroups: ['a'],
    generation: 1,
  });

describe('bad input: the same error, naming the field and the value', () => {
  test.each([
    ['an unknown enum value in a list', 'policyTypes[1]', 'INVALID_ENUM', 7, { policyTypes: [1, 7], hasPolicyTypes: true }],
    ['an unspecified (zero) required enum', 'sourceRef.type', 'INVALID_ENUM', 0, { sourceRef: { namespace: 'ns', name: 'np', uid: 'u' } }],
    ['an unknown required enum', 'rules[0].direction', 'INVALID_ENUM', 9, { rules: [{ direction: 9, from: {}, to: {} }] }],
    ['an unknown optional enum', 'rules[0].action', 'INVALID_ENUM', 42, { rules: [{ direction: 1, from: {}, to: {}, action: 42 }] }],
    ['an IP of 5 bytes', 'rules[0].services[0].groupAddress', 'INVALID_IP', new Uint8Array(5), { rules: [{ direction: 1, from: {}, to: {}, services: [{ protocol: 1, groupAddress: new Uint8Array(5) }] }] }],
    ['an empty CIDR address', 'rules[0].from.ipBlocks[0].cidr.ip', 'INVALID_IP', Buffer.alloc(0), { rules: [{ direction: 1, from: { ipBlocks: [{ cidr: { prefixLength: 8 } }] }, to: {} }] }],
    ['a prefix longer than the address', 'rules[0].from.ipBlocks[0].except[0]', 'INVALID_CIDR', 33, { rules: [{ direction: 1, from: { ipBlocks: [{ cidr: { ip: new Uint8Array(4) }, except: [{ ip: new Uint8Array(4), prefixLength: 33 }] }] }, to: {} }] }],
    ['a missing required message', 'rules[0].to', 'MISSING_FIELD', undefined, { rules: [{ direction: 1, from: {} }] }],
    ['a generation beyond 2^53', 'generation', 'OUT_OF_RANGE', 2 ** 60, { generation: Long.fromNumber(2 ** 60) }],
  ])('%s', (_name, path, code, value, change) => {
    const bytes = encoded('NetworkPolicy', { ...basePolicy(), ...change });
    const result = same('NetworkPolicy', bytes) as { error?: unknown };
    if (code !== undefined) expect(result.error).toMatchObject({ code, path, value });
  });

  test('the first error in field order wins, as the conversion meets them', () => {
    const bytes = encoded('NetworkPolicy', { ...basePolicy(), generation: Long.fromNumber(2 ** 60), policyTypes: [5], hasPolicyTypes: true, sourceRef: {} });
    expect(same('NetworkPolicy', bytes)).toMatchObject({ error: { code: 'INVALID_ENUM', path: 'sourceRef.type' } });
    const lists = encoded('AddressGroup', { name: 'g', groupMembers: [{ ips: [new Uint8Array(4), new Uint8Array(3)], ports: [{ protocol: 4 }] }, { ips: [new Uint8Array(2)] }] });
    expect(same('AddressGroup', lists)).toMatchObject({ error: { code: 'INVALID_IP', path: 'groupMembers[0].ips[1]' } });
  });

  test('a bad value in a list whose presence flag is off is not looked at', () => {
    same('NetworkPolicy', encoded('NetworkPolicy', { ...basePolicy(), policyTypes: [9], hasPolicyTypes: false }));
  });

  test('narrowed fields: a named port’s protocol, an agent condition’s type', () => {
    const member = encoded('AddressGroup', { name: 'g', groupMembers: [{ ips: [new Uint8Array(4)], ports: [{ name: 'p', port: 1, protocol: 4 }], hasPorts: true }] });
    expect(same('AddressGroup', member)).toMatchObject({ error: { code: 'INVALID_ENUM', path: 'groupMembers[0].ports[0].protocol', value: 'ICMP' } });
    const info = encoded('AgentInfo', { nodeName: 'n', conditions: [{ type: 'Sleepy', status: 1 }] });
    expect(same('AgentInfo', info)).toMatchObject({ error: { code: 'INVALID_ENUM', path: 'conditions[0].type', value: 'Sleepy' } });
  });

  test('a watch event without object, or with an unknown type', () => {
    expect(same('WatchEvent', encoded('WatchEvent', { type: 1 }))).toMatchObject({ error: { code: 'MISSING_FIELD', path: 'object' } });
    expect(same('WatchEvent', encoded('WatchEvent', { type: 8, bookmark: { resourceVersion: '1' } }))).toMatchObject({ error: { code: 'INVALID_ENUM', path: 'type', value: 8 } });
  });

  test('malformed bytes: truncation, invalid UTF-8, bad wire types and groups', () => {
    const valid = encodeWatchEvent({ type: 'ADDED', kind: 'Bookmark', object: { resourceVersion: 'é1' } });
    for (let n = 0; n < valid.length; n++) same('WatchEvent', valid.subarray(0, n));
    same('WatchEvent', Uint8Array.of(0x82, 0x01, 0x02, 0x0a, 0xc3)); // a bookmark whose string is cut inside a character
    same('WatchEvent', Uint8Array.of(0x82, 0x01, 0x03, 0x0a, 0x01, 0xff)); // invalid UTF-8
    same('WatchEvent', Uint8Array.of(0x0f)); // wire type 7
    same('WatchEvent', Uint8Array.of(0x0c)); // an end group without start
    same('WatchEvent', Uint8Array.of(0x03, 0x08, 0x01, 0x0c)); // a group of field 0
    const groupStart = Uint8Array.of(0xfb, 0x07); // field 127, wire type 3
    const groupEnd = Uint8Array.of(0xfc, 0x07);
    const nested = (n: number): Uint8Array => concat([...Array<Uint8Array>(n).fill(groupStart), ...Array<Uint8Array>(n).fill(groupEnd)]);
    expect(same('WatchEvent', nested(120))).toMatchObject({ error: { message: 'cannot decode WatchEvent: max depth exceeded' } });
    expect(same('WatchEvent', concat([nested(50), encodeWatchEvent({ type: 'ADDED', kind: 'Bookmark', object: { resourceVersion: '1' } })]))).toHaveProperty('value');
    same('WatchEvent', Uint8Array.of(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)); // an 11-byte varint
    same('WatchEvent', Uint8Array.of(0x82, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f)); // a length of 2^32 - 1
    same('WatchEvent', Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x7f)); // a tag beyond 32 bits
  });

  test('random bytes, and valid encodings with bytes changed or cut', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => void same('WatchEvent', bytes)),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(arb.watchEvent, fc.integer(), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }), fc.nat(), (ev, seed, flips, cut) => {
        const bytes = Uint8Array.from(variantOf('WatchEvent', encodeWatchEvent(ev), rng(seed)));
        for (const [at, b] of flips) if (bytes.length > 0) bytes[at % bytes.length] = b;
        same('WatchEvent', bytes);
        same('WatchEvent', bytes.subarray(0, cut % (bytes.length + 1)));
      }),
      { numRuns: 3000 },
    );
  });
});
