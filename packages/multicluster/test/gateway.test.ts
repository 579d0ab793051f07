import { chooseGateway, type GatewayNode } from '../src';

const node = (name: string, o: { candidate?: boolean; ready?: boolean; internal?: string; external?: string; gatewayIP?: string } = {}): GatewayNode => ({
  metadata: { name, annotations: { ...(o.candidate === false ? {} : { 'multicluster.antrea.io/gateway': 'true' }), ...(o.gatewayIP ? { 'multicluster.antrea.io/gateway-ip': o.gatewayIP } : {}) } },
  status: {
    addresses: [...(o.internal ? [{ type: 'InternalIP', address: o.internal }] : []), ...(o.external ? [{ type: 'ExternalIP', address: o.external }] : [])],
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
  },
});

describe('chooseGateway', () => {
  it('picks the first Ready candidate by name, with its InternalIP as both IPs', () => {
    const gw = chooseGateway({ nodes: [node('n3', { internal: '10.0.0.3' }), node('n2', { internal: '10.0.0.2', ready: false }), node('n1', { internal: '10.0.0.1', candidate: false })], namespace: 'kube-system' });
    expect(gw).toEqual({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'Gateway', metadata: { name: 'n3', namespace: 'kube-system' }, gatewayIP: '10.0.0.3', internalIP: '10.0.0.3' });
  });

  it('keeps the current Gateway while it is a Ready candidate', () => {
    expect(chooseGateway({ nodes: [node('a', { internal: '10.0.0.1' }), node('b', { internal: '10.0.0.2' })], current: 'b', namespace: 'ns' })?.metadata.name).toBe('b');
  });

  it('uses the ExternalIP with precedence external, and the gateway-ip annotation over both', () => {
    expect(chooseGateway({ nodes: [node('a', { internal: '10.0.0.1', external: '1.2.3.4' })], namespace: 'ns', precedence: 'external' })).toMatchObject({ gatewayIP: '1.2.3.4', internalIP: '10.0.0.1' });
    expect(chooseGateway({ nodes: [node('a', { internal: '10.0.0.1', external: '1.2.3.4', gatewayIP: '5.6.7.8' })], namespace: 'ns', precedence: 'external' })).toMatchObject({ gatewayIP: '5.6.7.8' });
  });

  it('gives a dual-stack Node its IPv6 addresses beside the IPv4 ones (the ExternalIP one with precedence external)', () => {
    const dual: GatewayNode = {
      metadata: { name: 'a', annotations: { 'multicluster.antrea.io/gateway': 'true' } },
      status: {
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: 'fd00::1' }, { type: 'ExternalIP', address: '1.2.3.4' }, { type: 'ExternalIP', address: '2001:db8::4' }],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    };
    expect(chooseGateway({ nodes: [dual], namespace: 'ns' })).toMatchObject({ gatewayIP: '10.0.0.1', internalIP: '10.0.0.1', gatewayIPv6: 'fd00::1', internalIPv6: 'fd00::1' });
    expect(chooseGateway({ nodes: [dual], namespace: 'ns', precedence: 'external' })).toMatchObject({ gatewayIP: '1.2.3.4', gatewayIPv6: '2001:db8::4', internalIPv6: 'fd00::1' });
    // IPv4 alone: no IPv6 fields.
    expect(chooseGateway({ nodes: [node('b', { internal: '10.0.0.2' })], namespace: 'ns' })).not.toHaveProperty('gatewayIPv6');
  });

  it('gives an IPv6-only Node gatewayIPv6 and internalIPv6 alone (no IPv4 gateway IP)', () => {
    const gw = { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'Gateway', metadata: { name: 'a', namespace: 'ns' }, gatewayIPv6: 'fd00::1', internalIPv6: 'fd00::1' };
    expect(chooseGateway({ nodes: [node('a', { internal: 'fd00::1', external: '2001:db8::4' })], namespace: 'ns' })).toEqual(gw);
    expect(chooseGateway({ nodes: [node('a', { internal: 'fd00::1', external: '2001:db8::4' })], namespace: 'ns', precedence: 'external' })).toEqual({ ...gw, gatewayIPv6: '2001:db8::4' });
    // Its gateway-ip annotation names the IPv6 gateway IP.
    expect(chooseGateway({ nodes: [node('a', { internal: 'fd00::1', gatewayIP: 'fd00::99' })], namespace: 'ns' })).toEqual({ ...gw, gatewayIPv6: 'fd00::99' });
  });

  it('carries the WireGuard public key the chosen Node published, and none without the annotation', () => {
    const keyed = node('a', { internal: '10.0.0.1' });
    keyed.metadata.annotations!['multicluster.antrea.io/wireguard-public-key'] = 'k'.repeat(43) + '=';
    expect(chooseGateway({ nodes: [keyed], namespace: 'ns' })?.wireGuard).toEqual({ publicKey: 'k'.repeat(43) + '=' });
    expect(chooseGateway({ nodes: [node('a', { internal: '10.0.0.1' })], namespace: 'ns' })).not.toHaveProperty('wireGuard');
  });

  it('has no Gateway when no candidate is Ready', () => {
    expect(chooseGateway({ nodes: [node('a', { internal: '10.0.0.1', ready: false })], namespace: 'ns' })).toBeUndefined();
  });
});
