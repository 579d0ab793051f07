// Egresses without a pool (Antrea's manual mode), controller side (pure): no allocation and no
// condition for a usable IP; an IP a Service or a pool's Egress holds, or an older manual Egress's,
// refused with EgressIPInUse naming the field and value; an IP inside a pool's range stays manual
// with a Warning naming the pool; egressIPs without pools refused by the checks.
import type { Egress, ExternalIPPool } from '@switchyard/apis/types';
import { parseIp } from '@switchyard/ipam/cidr';
import { manualEgressDecisions, validateEgress } from '../src/egress';
import { ExternalIPAllocator, usableRanges } from '../src/external-ip-allocator';
import { poolRanges } from '../src/external-ip-pool';

const egress = (name: string, spec: Partial<Egress['spec']>, created = '2026-11-29T10:00:00Z'): Egress => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Egress',
  metadata: { name, creationTimestamp: created },
  spec: { appliedTo: { podSelector: { matchLabels: { app: name } } }, ...spec },
});

function allocatorWith(...pools: ExternalIPPool[]): ExternalIPAllocator {
  const a = new ExternalIPAllocator();
  for (const p of pools) a.setPool(p.metadata.name ?? '', usableRanges(poolRanges(p.spec).ranges));
  return a;
}
const pool = (name: string, cidr: string): ExternalIPPool => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name }, spec: { ipRanges: [{ cidr }], nodeSelector: {} } });

function decide(egresses: Egress[], a: ExternalIPAllocator) {
  return manualEgressDecisions(egresses, (ip) => a.holders(ip), (ip) => a.poolOf(ip));
}

describe('Egress without a pool (manual mode), controller side', () => {
  it('a usable IP outside every pool: no refusal, no note (no IPAllocated condition, as Antrea)', () => {
    const d = decide([egress('m', { egressIP: '192.0.2.10' })], allocatorWith(pool('p', '10.10.0.0/30')));
    expect(d.get('m')).toEqual({ ip: '192.0.2.10' });
  });

  it('Egresses naming a pool, or with no IP, are not manual', () => {
    const d = decide([egress('p1', { externalIPPool: 'p', egressIP: '10.10.0.1' }), egress('none', {}), egress('dual', { externalIPPools: ['p'], egressIPs: ['10.10.0.2'] })], allocatorWith(pool('p', '10.10.0.0/30')));
    expect([...d.keys()]).toEqual([]);
  });

  it('an IP a Service holds: EgressIPInUse naming the field, the value and the holder', () => {
    const a = allocatorWith(pool('p', '10.10.0.0/30'));
    expect(a.claim('eg/lb', 'p', parseIp('10.10.0.1'), false).ok).toBe(true);
    const d = decide([egress('m', { egressIP: '10.10.0.1' })], a);
    expect(d.get('m')?.refusal).toEqual({ type: 'Warning', reason: 'EgressIPInUse', message: 'spec.egressIP: Invalid value: "10.10.0.1": already allocated to Service eg/lb; the Egress is not realized while it is' });
  });

  it('an IP a pool\'s Egress holds: refused, naming the Egress', () => {
    const a = allocatorWith(pool('p', '10.10.0.0/30'));
    expect(a.claim('Egress/pooled', 'p', parseIp('10.10.0.2'), false, 'Egress').ok).toBe(true);
    expect(decide([egress('m', { egressIP: '10.10.0.2' })], a).get('m')?.refusal?.message).toBe('spec.egressIP: Invalid value: "10.10.0.2": already allocated to Egress pooled; the Egress is not realized while it is');
  });

  it('two manual Egresses with one IP: the older (given first) keeps it, the younger is refused naming it; IPv6 compared as addresses', () => {
    const d = decide([egress('old', { egressIP: '192.0.2.10' }, '2026-11-29T09:00:00Z'), egress('young', { egressIP: '192.0.2.10' }, '2026-11-29T10:00:00Z')], allocatorWith());
    expect(d.get('old')).toEqual({ ip: '192.0.2.10' });
    expect(d.get('young')?.refusal?.message).toBe('spec.egressIP: Invalid value: "192.0.2.10": already the IP of the older Egress old (also without a pool); the Egress is not realized while it is');
    const v6 = decide([egress('a6', { egressIP: 'fd00::1' }), egress('b6', { egressIP: 'fd00:0::1' })], allocatorWith());
    expect(v6.get('a6')).toEqual({ ip: 'fd00::1' });
    expect(v6.get('b6')?.refusal?.reason).toBe('EgressIPInUse');
  });

  it('an IP in a pool\'s range, no pool named: stays manual (not taken from the pool, as Antrea), with a Warning naming the pool', () => {
    const a = allocatorWith(pool('p', '10.10.0.0/30'));
    const d = decide([egress('m', { egressIP: '10.10.0.1' })], a);
    expect(d.get('m')?.refusal).toBeUndefined();
    expect(d.get('m')?.note).toMatchObject({ type: 'Warning', reason: 'EgressIPInPoolRange' });
    expect(d.get('m')?.note?.message).toContain('spec.egressIP "10.10.0.1" is in the range of ExternalIPPool p but spec.externalIPPool is not set');
    expect(a.usage('p')).toEqual({ total: 2, used: 0 });
  });

  it('the checks: a malformed manual IP names the field; egressIPs without pools is refused (manual mode takes one IP in egressIP)', () => {
    expect(validateEgress(egress('m', { egressIP: '192.0.2.300' })).map((e) => e.path)).toEqual(['spec.egressIP']);
    const e = validateEgress(egress('m', { egressIPs: ['192.0.2.1'] }));
    expect(e.map((x) => x.path)).toEqual(['spec.egressIPs']);
    expect(e[0]?.message).toContain('needs spec.externalIPPools');
    expect(validateEgress(egress('m', { egressIP: '192.0.2.1' }))).toEqual([]);
  });
});
