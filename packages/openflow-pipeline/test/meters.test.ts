/** Packet-in meters: opt-in, on the NetworkPolicy packet-in flows and the DNS intercept. */
import { computeNodeFlows, dumpFlows, PACKETIN_METER_ID_DNS, PACKETIN_METER_ID_NP, type NodeState } from '../src/index';

const web = { name: 'web', namespace: 'ns', ofport: 0x25, ips: ['10.10.0.24'], mac: '02:00:00:00:00:24' };
function state(packetInMeters: boolean | undefined): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1,
      podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableAntreaPolicy: true, ...(packetInMeters !== undefined ? { packetInMeters } : {}),
    },
    pods: [web], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [],
    fqdn: { conjId: 0xfffffff0, podOfports: [web.ofport] },
  };
}
const controllerFlows = (s: NodeState): string[] => dumpFlows(computeNodeFlows(s), { cookie: false }).filter((l) => l.includes('controller('));

describe('packet-in meters', () => {
  it('are absent by default (Antrea literal flows)', () => {
    const l = controllerFlows(state(undefined));
    expect(l.length).toBeGreaterThan(0);
    expect(l.some((x) => x.includes('meter:'))).toBe(false);
  });

  it('when enabled, every NetworkPolicy packet-in passes the NP meter and the DNS intercept the DNS meter, first', () => {
    const l = controllerFlows(state(true));
    const np = l.filter((x) => x.includes('userdata=01.'));
    const dns = l.filter((x) => x.includes('userdata=02'));
    expect(np.length).toBeGreaterThan(0);
    expect(dns.length).toBe(1);
    for (const x of np) expect(x).toMatch(new RegExp(`actions=meter:${PACKETIN_METER_ID_NP},controller\\(`));
    expect(dns[0]).toMatch(new RegExp(`actions=meter:${PACKETIN_METER_ID_DNS},controller\\(`));
  });
});
