// The `admission` part: the validating webhook the server answers at /validate/<kind>, deciding
// over the informer caches of tiers, groups and Antrea-native policies.
import type { ExternalIPPool, Tier } from '@switchyard/apis/types';
import type { PartHealth } from '@switchyard/runtime';
import type { AdmissionView } from '../admission';
import type { ControllerContext } from '../context';
import type { ClusterInformers, Watch, WatchingPart } from '../informers';
import { ANTREA_NETWORK_POLICIES, CLUSTER_GROUPS, CLUSTER_NETWORK_POLICIES, EXTERNAL_IP_POOLS, GROUPS, TIERS } from '../resources';
import { AdmissionWebhook } from '../webhook';

/** What the webhook reads: the informer caches of the policy inputs. */
function admissionView(informers: ClusterInformers): AdmissionView {
  return {
    tiers: () => informers.cache(TIERS).values() as Iterable<Tier>,
    clusterGroups: () => informers.cache(CLUSTER_GROUPS).values(),
    groups: () => informers.cache(GROUPS).values(),
    clusterNetworkPolicies: () => informers.cache(CLUSTER_NETWORK_POLICIES).values(),
    antreaNetworkPolicies: () => informers.cache(ANTREA_NETWORK_POLICIES).values(),
    externalIPPools: () => informers.cache(EXTERNAL_IP_POOLS).values() as Iterable<ExternalIPPool>,
  };
}

export class Admission implements WatchingPart {
  readonly name = 'admission';
  readonly webhook: AdmissionWebhook;
  readonly watches: readonly Watch[] = [TIERS, CLUSTER_GROUPS, GROUPS, CLUSTER_NETWORK_POLICIES, ANTREA_NETWORK_POLICIES, EXTERNAL_IP_POOLS].map((resource) => ({ resource }));

  constructor(ctx: ControllerContext) {
    const webhook = new AdmissionWebhook({ view: admissionView(ctx.informers), kube: ctx.kube, logger: ctx.log });
    this.webhook = webhook;
    ctx.metrics.register('switchyard_controller_admission_reviews_total', 'counter', 'Admission reviews answered by the validating webhook, by verdict', () => [{ labels: { verdict: 'allowed' }, value: webhook.stats.allowed }, { labels: { verdict: 'denied' }, value: webhook.stats.denied }], ['verdict']);
  }

  async start(): Promise<void> {
    // Served by the server part; registered by the webhookConfiguration part.
  }

  async stop(): Promise<void> {
    // Nothing of its own.
  }

  health(): PartHealth {
    return { ok: true, detail: `${this.webhook.stats.allowed} reviews allowed, ${this.webhook.stats.denied} denied` };
  }
}
