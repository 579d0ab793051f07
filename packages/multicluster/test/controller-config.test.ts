import { MulticlusterError, controllerConfigOf, familyNotConfigured, serviceCIDRFromError } from '../src';

const src = 'ConfigMap kube-system/antrea-mc-controller-config key controller_manager_config.yaml';

describe('MultiClusterConfig', () => {
  it("reads Antrea's manifest as deployed: empty strings are unset, private/public precedence", () => {
    const doc = { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'MultiClusterConfig', health: { healthProbeBindAddress: ':8080' }, serviceCIDR: '', podCIDRs: [''], gatewayIPPrecedence: 'private', endpointIPType: 'ClusterIP', enableStretchedNetworkPolicy: false };
    expect(controllerConfigOf(doc, src)).toEqual({ gatewayIPPrecedence: 'internal', endpointIPType: 'ClusterIP', enableStretchedNetworkPolicy: false });
    expect(controllerConfigOf({ serviceCIDR: '10.96.0.0/12', podCIDRs: ['10.244.0.0/16', 'fd00:10::/64'], gatewayIPPrecedence: 'external', endpointIPType: 'PodIP', enableStretchedNetworkPolicy: true }, src)).toEqual({
      serviceCIDR: '10.96.0.0/12',
      podCIDRs: ['10.244.0.0/16', 'fd00:10::/64'],
      gatewayIPPrecedence: 'external',
      endpointIPType: 'PodIP',
      enableStretchedNetworkPolicy: true,
    });
    expect(controllerConfigOf({ gatewayIPPrecedence: 'public' }, src)).toEqual({ gatewayIPPrecedence: 'external' });
    expect(controllerConfigOf(null, src)).toEqual({});
  });

  it('reads a dual-stack member: serviceCIDRv6 beside serviceCIDR, pod CIDRs of both families', () => {
    expect(controllerConfigOf({ serviceCIDR: '10.96.0.0/12', serviceCIDRv6: 'fd00:10:96::/108', podCIDRs: ['10.244.0.0/16', 'fd00:10::/48'] }, src)).toEqual({
      serviceCIDR: '10.96.0.0/12', serviceCIDRv6: 'fd00:10:96::/108', podCIDRs: ['10.244.0.0/16', 'fd00:10::/48'],
    });
    expect(controllerConfigOf({ serviceCIDRv6: '' }, src)).toEqual({});
  });

  it.each([
    [{ serviceCIDR: '10.96.0.0' }, 'serviceCIDR', '10.96.0.0'],
    [{ serviceCIDR: '10.96.0.0/33' }, 'serviceCIDR', '10.96.0.0/33'],
    [{ podCIDRs: '10.244.0.0/16' }, 'podCIDRs', '10.244.0.0/16'],
    [{ podCIDRs: ['10.244.0.0/16', 'x/8'] }, 'podCIDRs[1]', 'x/8'],
    [{ gatewayIPPrecedence: 'nearest' }, 'gatewayIPPrecedence', 'nearest'],
    [{ endpointIPType: 'NodeIP' }, 'endpointIPType', 'NodeIP'],
    [{ enableStretchedNetworkPolicy: 'yes' }, 'enableStretchedNetworkPolicy', 'yes'],
    [{ serviceCIDRv6: '10.97.0.0/16' }, 'serviceCIDRv6', '10.97.0.0/16'],
    [{ serviceCIDRv6: 'fd00:96::' }, 'serviceCIDRv6', 'fd00:96::'],
    [{ serviceCIDR: 'fd00:97::/108', serviceCIDRv6: 'fd00:96::/108' }, 'serviceCIDR', 'fd00:97::/108'],
  ])('refuses %j naming the field and value', (doc, field, value) => {
    let err: unknown;
    try {
      controllerConfigOf(doc, src);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MulticlusterError);
    expect(err).toMatchObject({ code: 'INVALID_OPTION', field: `${src}: ${field}`, value });
    expect((err as Error).message).toContain(`${src}: ${field} must be`);
  });
});

describe('service CIDR discovery', () => {
  it("parses the range out of the API server's invalid ClusterIP error", () => {
    expect(serviceCIDRFromError('Service "invalid-svc" is invalid: spec.clusterIPs: Invalid value: []string{"0.0.0.0"}: failed to allocate IP 0.0.0.0: the provided IP (0.0.0.0) is not in the valid range. The range of valid IPs is 10.96.0.0/12')).toBe('10.96.0.0/12');
    expect(serviceCIDRFromError('The range of valid IPs is fd00:10:96::/108')).toBe('fd00:10:96::/108');
    expect(serviceCIDRFromError('spec.clusterIPs: Invalid value: "0.0.0.0": may not change once set')).toBeUndefined();
  });

  it("tells a cluster without the probe's family from other refusals", () => {
    expect(familyNotConfigured('Service "invalid-svc" is invalid: spec.clusterIPs[0]: Invalid value: []string{"::"}: IPv6 is not configured on this cluster')).toBe(true);
    expect(familyNotConfigured('Service "invalid-svc" is invalid: spec.clusterIPs[0]: Invalid value: []string{"::"}: failed to allocate IP ::: the provided IP (::) is not in the valid range. The range of valid IPs is fd00:10:96::/108')).toBe(false);
  });
});
