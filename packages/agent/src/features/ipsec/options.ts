/** The IPsec feature's options (trafficEncryptionMode ipsec), their checks and their MTU cost. */
import { AgentError } from '../../errors';
import type { FeatureOptionsFragment } from '../node/options';
import { ipsecPSK, ipsecPodMtu } from './ipsec';

export interface IPsecOptions {
  /** IPsec pre-shared key. Default: the environment variable ANTREA_IPSEC_PSK (required with ipsec and psk authentication). */
  ipsecPSK?: string;
  /**
   * How IPsec peers authenticate (antrea-agent.conf `ipsec.authenticationMode`): `psk` (default) or
   * `cert`, a certificate for `CN=<nodeName>` issued by the controller's IPsec signer through a
   * CertificateSigningRequest, kept in `<dataDir>/ipsec`.
   */
  ipsecAuthenticationMode?: 'psk' | 'cert';
  /** Namespace of the IPsec CA ConfigMap (switchyard-ipsec-ca). Default kube-system. */
  ipsecCANamespace?: string;
}

export type IPsecUnset = 'ipsecPSK';

export const ipsecOptions: FeatureOptionsFragment<IPsecOptions, IPsecUnset> = {
  resolve: (o) => ({
    ipsecAuthenticationMode: o.ipsecAuthenticationMode ?? 'psk',
    ipsecCANamespace: o.ipsecCANamespace ?? 'kube-system',
  }),
  check: (r, given, env) => {
    if (r.trafficEncryptionMode !== 'ipsec') return;
    if (r.kube === undefined) throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode ipsec makes one tunnel port per peer Node and needs the Kubernetes API', r.trafficEncryptionMode, 'trafficEncryptionMode');
    // As Antrea: IPsec encrypts the tunnel, so every peer must be reached through it.
    if (r.trafficMode !== 'encap') throw new AgentError('INVALID_CONFIG', `trafficEncryptionMode ipsec needs trafficEncapMode encap, not ${r.trafficMode}`, r.trafficMode, 'trafficEncapMode');
    // With psk authentication the key comes from the environment when not given (cert: from the controller's signer at start).
    if (r.ipsecAuthenticationMode === 'psk') return { ipsecPSK: ipsecPSK(given.ipsecPSK, env) };
  },
  fromConfig: (cfg) => (cfg.trafficEncryptionMode === 'ipsec' ? { ipsecAuthenticationMode: cfg.ipsec.authenticationMode } : {}),
  // ESP comes on top of the tunnel's overhead.
  podMtu: (r, mtu) => (r.trafficEncryptionMode === 'ipsec' ? ipsecPodMtu(mtu) : mtu),
};
