/** Egress on a node: the members the controller sends, where its IP is owned, and what the pipeline gets. */
import { egressExternalIPs } from '../src/features/external-ip/ownership';
import { egressMarks, egressMembersFromGroups, egressRules, placementKey, type EgressPodFacts } from '../src/features/egress/rules';

const pod = (name: string, nodeName: string, ip: string | undefined, _labels: Record<string, string> = {}, namespace = 'default'): EgressPodFacts => ({ namespace, name, nodeName, ...(ip ? { ip } : {}) });

describe('members from the controller', () => {
  test('each group is its Egress\'s members, with node and IPv4 and IPv6 address; a member without one is kept without it; a non-pod member is dropped', () => {
    const members = egressMembersFromGroups([
      { name: 'e', groupMembers: [
        { pod: { namespace: 'd', name: 'a1' }, node: { name: 'n1' }, ips: ['fd00::5', '10.0.1.5'] },
        { pod: { namespace: 'd', name: 'v6' }, node: { name: 'n2' }, ips: ['fd00::6'] },
        { ips: ['10.9.9.9'] },
      ] },
      { name: 'empty', groupMembers: [] },
    ]);
    expect([...members]).toEqual([
      ['e', [{ namespace: 'd', name: 'a1', nodeName: 'n1', ip: '10.0.1.5', ipv6: 'fd00::5' }, { namespace: 'd', name: 'v6', nodeName: 'n2', ipv6: 'fd00::6' }]],
      ['empty', []],
    ]);
  });
});

describe('rules', () => {
  const members = new Map([['e', [pod('a1', 'n1', '10.0.1.5', {}), pod('a2', 'n2', '10.0.2.5', {}), pod('pending', 'n1', undefined, {})]]]);
  const nodeIPs = new Map([['n1', '192.168.77.11'], ['n2', '192.168.77.12']]);

  test('on the owner: SNAT here under its mark, for the local and the remote members', () => {
    const marks = egressMarks(new Map(), ['192.168.77.200']);
    expect(egressRules({ nodeName: 'n2', members, placements: new Map([['e', { ip: '192.168.77.200', owner: 'n2' }]]), nodeIPs, marks })).toEqual([
      { name: 'e', ip: '192.168.77.200', local: true, mark: 1, localPods: ['10.0.2.5'], remotePods: ['10.0.1.5'] },
    ]);
  });

  test('elsewhere: tunnelled to the owner\'s address; without an owner, no owner address', () => {
    expect(egressRules({ nodeName: 'n1', members, placements: new Map([['e', { ip: '192.168.77.200', owner: 'n2' }]]), nodeIPs, marks: new Map() })).toEqual([
      { name: 'e', ip: '192.168.77.200', local: false, ownerIP: '192.168.77.12', localPods: ['10.0.1.5'], remotePods: ['10.0.2.5'] },
    ]);
    expect(egressRules({ nodeName: 'n1', members, placements: new Map([['e', { ip: '192.168.77.200' }]]), nodeIPs, marks: new Map() })[0]).not.toHaveProperty('ownerIP');
    // An Egress without a placed IP has no rule.
    expect(egressRules({ nodeName: 'n1', members, placements: new Map(), nodeIPs, marks: new Map() })).toEqual([]);
  });

  test('a dual-stack Egress: a rule per family, each naming the members\' addresses of its family, each IP with its own owner and mark', () => {
    const dual = new Map([['e', [
      { namespace: 'd', name: 'a1', nodeName: 'n1', ip: '10.0.1.5', ipv6: 'fd00:10::5' },
      { namespace: 'd', name: 'a2', nodeName: 'n2', ip: '10.0.2.5', ipv6: 'fd00:20::5' },
      { namespace: 'd', name: 'v4only', nodeName: 'n1', ip: '10.0.1.6' },
    ]]]);
    const placements = new Map([[placementKey('e', '192.168.77.200'), { ip: '192.168.77.200', owner: 'n1' }], [placementKey('e', 'fd00:77::200'), { ip: 'fd00:77::200', owner: 'n2' }]]);
    expect([...placements.keys()]).toEqual(['e', 'e/IPv6']);
    expect(egressRules({ nodeName: 'n2', members: dual, placements, nodeIPs, marks: egressMarks(new Map(), ['fd00:77::200']) })).toEqual([
      { name: 'e', ip: '192.168.77.200', local: false, ownerIP: '192.168.77.11', localPods: ['10.0.2.5'], remotePods: ['10.0.1.5', '10.0.1.6'] },
      { name: 'e', ip: 'fd00:77::200', local: true, mark: 1, localPods: ['fd00:20::5'], remotePods: ['fd00:10::5'] },
    ]);
    // An IPv6-only Egress: its IPv6 rule alone.
    expect(egressRules({ nodeName: 'n1', members: dual, placements: new Map([['e/IPv6', { ip: 'fd00:77::200', owner: 'n2' }]]), nodeIPs, marks: new Map() })).toEqual([
      { name: 'e', ip: 'fd00:77::200', local: false, ownerIP: '192.168.77.12', localPods: ['fd00:10::5'], remotePods: ['fd00:20::5'] },
    ]);
  });

  test('marks stay with their IP while it is owned; a new IP takes the lowest free mark', () => {
    const first = egressMarks(new Map(), ['10.0.0.2', '10.0.0.1']);
    expect([...first]).toEqual([['10.0.0.1', 1], ['10.0.0.2', 2]]);
    expect([...egressMarks(first, ['10.0.0.2', '10.0.0.3'])]).toEqual([['10.0.0.2', 2], ['10.0.0.3', 1]]);
  });
});

describe('Egress IPs placed by the external IP part', () => {
  test('the egressIP of an Egress naming a pool, and both IPs of a dual-stack one; none before the controller wrote one; an IP a Service carries is a problem naming the field', () => {
    const taken = [{ ip: '10.9.0.1', pool: 'p', services: ['default/lb'] }];
    const { ips, problems } = egressExternalIPs([
      { metadata: { name: 'a' }, spec: { externalIPPool: 'p', egressIP: '10.9.0.2' } },
      { metadata: { name: 'b' }, spec: { externalIPPool: 'p' } },
      { metadata: { name: 'c' }, spec: { externalIPPool: 'p', egressIP: '10.9.0.1' } },
      { metadata: { name: 'd' }, spec: { externalIPPools: ['p6', 'p'], egressIPs: ['fd00::2', '10.9.0.3'] } },
    ], taken);
    expect(ips).toEqual([
      { ip: '10.9.0.2', pool: 'p', services: [], egresses: ['a'] },
      { ip: 'fd00::2', pool: 'p6', services: [], egresses: ['d'] },
      { ip: '10.9.0.3', pool: 'p', services: [], egresses: ['d'] },
    ]);
    expect(problems).toEqual([
      { object: 'Egress c', field: 'spec.egressIP', value: '10.9.0.1', message: 'spec.egressIP 10.9.0.1 is already placed for Service default/lb; this Egress is ignored' },
    ]);
  });

  test('two IPs of one family in a dual-stack Egress: the second is a problem naming its field and value, the first is placed', () => {
    const { ips, problems } = egressExternalIPs([{ metadata: { name: 'd' }, spec: { externalIPPools: ['p6', 'q6'], egressIPs: ['fd00::2', 'fd00::3'] } }]);
    expect(ips.map((e) => e.ip)).toEqual(['fd00::2']);
    expect(problems).toEqual([
      { object: 'Egress d', field: 'spec.egressIPs[1]', value: 'fd00::3', message: 'spec.egressIPs[1] "fd00::3" is a second IPv6 IP (spec.egressIPs[0] is the first): an Egress takes one IP per family; this one is ignored' },
    ]);
  });
});
