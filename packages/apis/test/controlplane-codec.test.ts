import fc from 'fast-check';
import {
  ControlplaneCodecError,
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
import * as arb from './support/arbitraries';
import golden from './fixtures/controlplane-golden.json';

const basePolicy: cp.NetworkPolicy = {
  uid: 'a1b2',
  name: 'a1b2',
  namespace: 'default',
  sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: 'nginx-allow', uid: 'a1b2' },
  rules: [
    {
      direction: 'In',
      from: { addressGroups: ['g1'], ipBlocks: [{ cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] }] },
      to: { addressGroups: [], ipBlocks: [] },
      services: [{ protocol: 'TCP', port: 80 }],
      priority: 0,
      enableLogging: false,
    },
  ],
  appliedToGroups: ['atg1'],
  generation: 1,
};

describe('controlplane protobuf round trips', () => {
  const cases: [string, fc.Arbitrary<unknown>, (v: never) => Uint8Array, (b: Uint8Array) => unknown][] = [
    ['NetworkPolicy', arb.networkPolicy, encodeNetworkPolicy, decodeNetworkPolicy],
    ['AddressGroup', arb.addressGroup, encodeAddressGroup, decodeAddressGroup],
    ['AppliedToGroup', arb.appliedToGroup, encodeAppliedToGroup, decodeAppliedToGroup],
    ['NetworkPolicyStatus', arb.networkPolicyStatus, encodeNetworkPolicyStatus, decodeNetworkPolicyStatus],
    ['AgentInfo', arb.agentInfo, encodeAgentInfo, decodeAgentInfo],
    ['WatchEvent (every payload kind, incl. group patches)', arb.watchEvent, encodeWatchEvent, decodeWatchEvent],
  ];
  test.each(cases)('%s decodes to the value that was encoded', (_name, a, enc, dec) => {
    fc.assert(
      fc.property(a, (v) => {
        expect(dec(enc(v as never))).toEqual(v);
      }),
      { numRuns: 150 },
    );
  });

  test('encodes byte for byte what agents and controllers already exchange (frames recorded from the previous codec)', () => {
    for (const { event, hex } of golden as { event: cp.WatchEvent; hex: string }[]) {
      expect(Buffer.from(encodeWatchEvent(event)).toString('hex')).toBe(hex);
      expect(decodeWatchEvent(Buffer.from(hex, 'hex'))).toEqual(event);
    }
  });

  test('IPs travel as 4 or 16 bytes and come back in canonical text', () => {
    const msg = proto.controlplane.v1.AddressGroup.decode(
      encodeAddressGroup({ name: 'g', groupMembers: [{ ips: ['10.0.0.1', 'FD00:0:0::0001'] }] }),
    );
    expect(msg.groupMembers[0]?.ips?.map((b) => b.length)).toEqual([4, 16]);
    expect(decodeAddressGroup(encodeAddressGroup({ name: 'g', groupMembers: [{ ips: ['FD00:0:0::0001'] }] })).groupMembers[0]?.ips).toEqual([
      'fd00::1',
    ]);
  });

  test('named ports survive as strings and numbered ports as numbers', () => {
    const p = { ...basePolicy, rules: [{ ...basePolicy.rules[0]!, services: [{ protocol: 'TCP' as const, port: 'http' }, { protocol: 'UDP' as const, port: 53 }] }] };
    expect(decodeNetworkPolicy(encodeNetworkPolicy(p)).rules[0]?.services).toEqual([
      { protocol: 'TCP', port: 'http' },
      { protocol: 'UDP', port: 53 },
    ]);
  });

  test('policyTypes keep absent, empty and listed apart', () => {
    expect(decodeNetworkPolicy(encodeNetworkPolicy(basePolicy))).not.toHaveProperty('policyTypes');
    expect(decodeNetworkPolicy(encodeNetworkPolicy({ ...basePolicy, policyTypes: [] })).policyTypes).toEqual([]);
    expect(decodeNetworkPolicy(encodeNetworkPolicy({ ...basePolicy, policyTypes: ['Egress', 'Ingress'] })).policyTypes).toEqual(['Egress', 'Ingress']);
  });

  test('an unknown policyType on the wire fails to decode with INVALID_ENUM and its path', () => {
    const msg = networkPolicyToProto(basePolicy);
    msg.policyTypes = [1, 7 as proto.controlplane.v1.PolicyType];
    msg.hasPolicyTypes = true;
    const bytes = proto.controlplane.v1.NetworkPolicy.encode(msg).finish();
    expect(() => decodeNetworkPolicy(bytes)).toThrow(expect.objectContaining({ code: 'INVALID_ENUM', path: 'policyTypes[1]', value: 7 }));
  });

  test('an invalid IP in a group member is rejected with its field path', () => {
    const err = (() => {
      try {
        encodeAddressGroup({ name: 'g', groupMembers: [{ ips: ['10.0.0.1'] }, { ips: ['10.0.0.300'] }] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ControlplaneCodecError);
    expect(err).toMatchObject({ code: 'INVALID_IP', path: 'groupMembers[1].ips[0]', value: '10.0.0.300' });
  });

  test('a bad CIDR prefix is rejected with its field path', () => {
    const p = { ...basePolicy, rules: [{ ...basePolicy.rules[0]!, from: { addressGroups: [], ipBlocks: [{ cidr: '10.0.0.0/33', except: [] }] } }] };
    expect(() => encodeNetworkPolicy(p)).toThrow(expect.objectContaining({ code: 'INVALID_CIDR', path: 'rules[0].from.ipBlocks[0].cidr' }));
  });

  test('a port outside int32 is rejected instead of silently truncated', () => {
    const p = { ...basePolicy, rules: [{ ...basePolicy.rules[0]!, services: [{ protocol: 'TCP' as const, port: 2 ** 40 }] }] };
    expect(() => encodeNetworkPolicy(p)).toThrow(expect.objectContaining({ code: 'OUT_OF_RANGE', path: 'rules[0].services[0].port' }));
  });

  test('a watch event without payload fails to decode with MISSING_FIELD', () => {
    const bytes = proto.controlplane.v1.WatchEvent.encode({ type: proto.controlplane.v1.EventType.ADDED }).finish();
    expect(() => decodeWatchEvent(bytes)).toThrow(expect.objectContaining({ code: 'MISSING_FIELD', path: 'object' }));
  });

  test('errors inside a watch event name their path under object', () => {
    const ev: cp.WatchEvent = { type: 'ADDED', kind: 'AddressGroup', object: { name: 'g', groupMembers: [{ ips: ['10.0.0.300'] }] } };
    expect(() => encodeWatchEvent(ev)).toThrow(expect.objectContaining({ code: 'INVALID_IP', path: 'object.groupMembers[0].ips[0]' }));
    expect(() => encodeWatchEvent({ ...ev, kind: 'Nope' } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ENUM', path: 'kind' }));
  });

  test('an IP of 5 bytes on the wire fails to decode with INVALID_IP', () => {
    const bytes = proto.controlplane.v1.AddressGroup.encode({ name: 'g', groupMembers: [{ ips: [new Uint8Array(5)] }] }).finish();
    expect(() => decodeAddressGroup(bytes)).toThrow(expect.objectContaining({ code: 'INVALID_IP', path: 'groupMembers[0].ips[0]' }));
  });
});
