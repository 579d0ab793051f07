import type { ExternalNode } from '@switchyard/apis';
import { resolveInterfaces } from '../src/features/external-node/interfaces';

const en = (interfaces: ExternalNode['spec']['interfaces']): ExternalNode => ({ metadata: { name: 'vm1', namespace: 'vm-ns' }, spec: { interfaces } });
const host = new Map([
  ['lo', [{ ip: '127.0.0.1', prefix: 8 }]],
  ['eth0', [{ ip: '172.16.100.3', prefix: 24 }, { ip: '172.16.100.4', prefix: 24 }]],
  ['eth1', [{ ip: '10.0.0.5', prefix: 16 }]],
]);

describe('resolveInterfaces', () => {
  test('finds an unnamed interface by the link holding all its IPs', () => {
    expect(resolveInterfaces(en([{ name: '', ips: ['172.16.100.3', '172.16.100.4'] }]), host)).toEqual([{ name: 'eth0', ips: ['172.16.100.3', '172.16.100.4'] }]);
  });

  test('takes named interfaces as named', () => {
    expect(resolveInterfaces(en([{ name: 'eth0', ips: ['172.16.100.3'] }, { name: 'eth1', ips: ['10.0.0.5'] }]), host).map((i) => i.name)).toEqual(['eth0', 'eth1']);
  });

  test('refuses an interface name the host does not have, naming the field', () => {
    expect(() => resolveInterfaces(en([{ name: 'eth7', ips: ['172.16.100.3'] }]), host)).toThrow(expect.objectContaining({ code: 'EXTERNAL_NODE_INTERFACE', value: 'eth7', path: 'spec.interfaces[0].name' }));
  });

  test('refuses an IP that is not on the named interface', () => {
    expect(() => resolveInterfaces(en([{ name: 'eth1', ips: ['10.0.0.5', '10.0.0.6'] }]), host)).toThrow(expect.objectContaining({ value: '10.0.0.6', path: 'spec.interfaces[0].ips' }));
  });

  test('refuses an unnamed interface whose IP no link has', () => {
    expect(() => resolveInterfaces(en([{ name: '', ips: ['192.0.2.1'] }]), host)).toThrow(expect.objectContaining({ value: '192.0.2.1', path: 'spec.interfaces[0].ips' }));
  });

  test('needs names when there are several interfaces, and at least one interface', () => {
    expect(() => resolveInterfaces(en([{ ips: ['172.16.100.3'] }, { name: 'eth1', ips: ['10.0.0.5'] }]), host)).toThrow(expect.objectContaining({ path: 'spec.interfaces[0].name' }));
    expect(() => resolveInterfaces(en([]), host)).toThrow(expect.objectContaining({ path: 'spec.interfaces' }));
  });

  test('never guards loopback or an OVS uplink (<if>~)', () => {
    expect(() => resolveInterfaces(en([{ name: '', ips: ['127.0.0.1'] }]), host)).toThrow(expect.objectContaining({ value: 'lo' }));
    expect(() => resolveInterfaces(en([{ name: 'eth0~', ips: [] }]), new Map([['eth0~', []]]))).toThrow(expect.objectContaining({ value: 'eth0~' }));
  });
});
