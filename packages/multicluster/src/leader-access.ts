// A member's client for the leader's API server, from the URL in its ClusterSet and the token
// Secret it names (keys `token` and, optionally, `ca.crt`, as a service-account-token Secret has).
import type https from 'node:https';
import { KubeConfigClient, KubeRequestError, type KubeClient, type KubeConfigSource } from '@switchyard/kube';
import { MulticlusterError } from './errors';

/** What a member needs to reach its leader. */
export interface LeaderAccess {
  server: string;
  token: string;
  /** PEM CA of the leader's serving certificate; without it the system roots verify it. */
  caPem?: string;
}

/** Makes a client for the leader; injectable so tests and tools can wrap or fake it. */
export type LeaderConnector = (access: LeaderAccess) => KubeClient;

/** A {@link KubeConfigSource} with a bearer token and an optional CA. */
export function tokenConfig(access: LeaderAccess): KubeConfigSource {
  return {
    getCurrentCluster: () => ({ server: access.server }),
    applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
      opts.headers = { ...opts.headers, authorization: `Bearer ${access.token}` };
      if (access.caPem) opts.ca = access.caPem;
      return Promise.resolve();
    },
  };
}

/** The default connector: HTTPS with the token and CA. */
export const connectLeader: LeaderConnector = (access) => new KubeConfigClient(tokenConfig(access));

/** Reads the token Secret (`data.token`, `data["ca.crt"]`, base64) of a member's ClusterSet. */
export async function readLeaderAccess(kube: KubeClient, namespace: string, secret: string, server: string): Promise<LeaderAccess> {
  let s: { data?: Record<string, string> };
  try {
    s = await kube.request('GET', `/api/v1/namespaces/${namespace}/secrets/${encodeURIComponent(secret)}`);
  } catch (e) {
    if (e instanceof KubeRequestError && e.status === 404) throw new MulticlusterError('LEADER_ACCESS', `Secret ${namespace}/${secret} named by spec.leaders[0].secret not found`, 'spec.leaders[0].secret', secret);
    throw e;
  }
  const token = s.data?.['token'];
  if (!token) throw new MulticlusterError('LEADER_ACCESS', `Secret ${namespace}/${secret} has no data.token`, 'spec.leaders[0].secret', secret);
  const ca = s.data?.['ca.crt'];
  return { server, token: Buffer.from(token, 'base64').toString('utf8').trim(), ...(ca ? { caPem: Buffer.from(ca, 'base64').toString('utf8') } : {}) };
}
