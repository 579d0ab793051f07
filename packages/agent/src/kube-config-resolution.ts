/** The answer of the kubeconfig resolver child (kube-config-resolve.ts) to the agent (kube-config.ts). */

/** The TLS fields of https.RequestOptions that client-node sets from a kubeconfig. */
export const KUBE_CONFIG_TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername'] as const;
export type TlsField = (typeof KUBE_CONFIG_TLS_FIELDS)[number];

/**
 * What the resolver child prints: the request options client-node computed (binary TLS material
 * as `base64:...`), and when they may be stale (`refreshMs`, `tokenFile`); or why the
 * configuration cannot leave client-node (`unsupported`: the caller loads client-node itself).
 */
export type KubeConfigResolution =
  | {
      server: string;
      tls: Partial<Record<TlsField, string>>;
      rejectUnauthorized?: boolean;
      auth?: string;
      headers: Record<string, string>;
      /** Resolve again after this long (an exec credential: client-node caches it until it expires), null: never by age. */
      refreshMs: number | null;
      /** A token file client-node reads (in-cluster): resolve again when it changes (kubelet rotates it). */
      tokenFile?: string;
      /** client-node refused to make request options (plain HTTP without skipTLSVerify): every request fails with this, as in-process. */
      requestError?: string;
    }
  | { unsupported: string };
