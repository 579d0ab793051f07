// The validating admission webhook of the controller: AdmissionReview v1 in, verdict out, for the
// Antrea kinds in ADMISSION_KINDS (served at /validate/<kind>), and the
// ValidatingWebhookConfiguration that registers it with the API server.
import type { ExternalIPPool, Tier } from '@switchyard/apis/types';
import { STATIC_TIERS } from '@switchyard/policy-compiler';
import type { KubeClient, KubeObject } from '@switchyard/kube';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { ADMISSION_KINDS, decideAdmission, type AdmissionInput, type AdmissionKind, type AdmissionView } from './admission';

/** Path prefix of the webhook endpoints. */
export const VALIDATE_PREFIX = '/validate/';
/** Name of the ValidatingWebhookConfiguration the controller registers. */
export const WEBHOOK_CONFIGURATION_NAME = 'crdvalidator.antrea.io';

/** Options of {@link AdmissionWebhook}. */
export interface AdmissionWebhookOptions {
  view: AdmissionView;
  /** Reads a Tier the view does not hold yet (created just before the policy naming it). */
  kube?: KubeClient;
  logger?: Logger;
}

/** An HTTP answer: status code and JSON body. */
export interface WebhookReply {
  status: number;
  body: Record<string, unknown>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function failure(status: number, message: string): WebhookReply {
  return { status, body: { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason: status === 404 ? 'NotFound' : 'BadRequest', code: status } };
}

/** Serves the reviews; one instance per controller. */
export class AdmissionWebhook {
  private readonly log: Logger;
  /** Reviews answered, by kind and verdict (metrics). */
  readonly stats = { allowed: 0, denied: 0 };

  constructor(private readonly o: AdmissionWebhookOptions) {
    this.log = o.logger ?? silentLogger;
  }

  /** Answer a POST to `path` (`/validate/<kind>`) with body `body`. */
  async review(path: string, body: Buffer): Promise<WebhookReply> {
    const seg = path.slice(VALIDATE_PREFIX.length);
    if (!Object.hasOwn(ADMISSION_KINDS, seg)) return failure(404, `no webhook at ${path}; known: ${Object.keys(ADMISSION_KINDS).map((k) => VALIDATE_PREFIX + k).join(', ')}`);
    const kind = seg as AdmissionKind;
    let review: unknown;
    try {
      review = JSON.parse(body.toString('utf8'));
    } catch (e) {
      return failure(400, `cannot decode AdmissionReview: ${(e as Error).message}`);
    }
    if (!isRecord(review) || review.kind !== 'AdmissionReview' || !isRecord(review.request) || typeof review.request.uid !== 'string') return failure(400, 'body must be an AdmissionReview with a request and its uid');
    const req = review.request as unknown as AdmissionInput & { uid: string; name?: string; namespace?: string };
    const view = await this.viewFor(kind, req);
    let d = decideAdmission(kind, req, view);
    // A delete refused as "in use" may rest on a cache that has not seen the user's policy
    // deletion of a moment ago: decide once more on what the API holds now.
    if (!d.allowed && req.operation === 'DELETE') {
      const live = await this.liveView();
      if (live) d = decideAdmission(kind, req, live);
    }
    const response: Record<string, unknown> = { uid: req.uid, allowed: d.allowed };
    if (!d.allowed) {
      // Antrea sets only the message: the API server answers 403 Forbidden with it.
      response.status = { message: d.message ?? '' };
      this.stats.denied++;
      this.log.info({ kind: ADMISSION_KINDS[kind].kind, name: req.name, namespace: req.namespace, operation: req.operation, reason: d.message }, 'admission denied');
    } else this.stats.allowed++;
    return { status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response } };
  }

  /** The referring kinds as the API holds them now (undefined without a client or on error). */
  private async liveView(): Promise<AdmissionView | undefined> {
    if (!this.o.kube) return undefined;
    const list = async (path: string): Promise<KubeObject[]> => (await this.o.kube?.request<{ items?: KubeObject[] }>('GET', path))?.items ?? [];
    try {
      const [cnps, anps, cgs, groups, tiers] = await Promise.all([
        list('/apis/crd.antrea.io/v1beta1/clusternetworkpolicies'),
        list('/apis/crd.antrea.io/v1beta1/networkpolicies'),
        list('/apis/crd.antrea.io/v1beta1/clustergroups'),
        list('/apis/crd.antrea.io/v1beta1/groups'),
        list('/apis/crd.antrea.io/v1beta1/tiers'),
      ]);
      return { tiers: () => tiers as unknown as Tier[], clusterGroups: () => cgs, groups: () => groups, clusterNetworkPolicies: () => cnps, antreaNetworkPolicies: () => anps, externalIPPools: () => this.o.view.externalIPPools() };
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'admission: cannot read the current policies; deciding on the caches');
      return undefined;
    }
  }

  /** The view, plus the policy's tier read from the API when the caches have not seen it yet. */
  private async viewFor(kind: AdmissionKind, req: AdmissionInput): Promise<AdmissionView> {
    const view = this.o.view;
    if (kind === 'externalippool' || kind === 'egress') return this.withLivePools(view);
    if ((kind !== 'acnp' && kind !== 'anp') || !req.object || !this.o.kube) return view;
    const tier = String((req.object.spec as { tier?: unknown } | undefined)?.tier ?? '').toLowerCase();
    if (tier === '' || STATIC_TIERS[tier] !== undefined || [...view.tiers()].some((t) => t.metadata.name === tier)) return view;
    let fetched: Tier;
    try {
      fetched = await this.o.kube.request<Tier>('GET', `/apis/crd.antrea.io/v1beta1/tiers/${encodeURIComponent(tier)}`);
    } catch {
      return view;
    }
    return {
      tiers: () => [...view.tiers(), fetched],
      clusterGroups: () => view.clusterGroups(),
      groups: () => view.groups(),
      clusterNetworkPolicies: () => view.clusterNetworkPolicies(),
      antreaNetworkPolicies: () => view.antreaNetworkPolicies(),
      externalIPPools: () => view.externalIPPools(),
    };
  }

  /** The view with the ExternalIPPools the API holds now: a pool created a moment ago counts for the overlap check. */
  private async withLivePools(view: AdmissionView): Promise<AdmissionView> {
    if (!this.o.kube) return view;
    let pools: ExternalIPPool[];
    try {
      pools = (await this.o.kube.request<{ items?: ExternalIPPool[] }>('GET', '/apis/crd.antrea.io/v1beta1/externalippools')).items ?? [];
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'admission: cannot list ExternalIPPools; deciding on the cache');
      return view;
    }
    return { ...view, externalIPPools: () => pools };
  }
}

/**
 * The ValidatingWebhookConfiguration for every kind in ADMISSION_KINDS, calling `service` on
 * port 443 with `caPem` as its caBundle. failurePolicy Fail, as Antrea registers its validators.
 */
export function webhookConfiguration(o: { namespace: string; service: string; caPem: string; timeoutSeconds?: number }): KubeObject {
  const caBundle = Buffer.from(o.caPem).toString('base64');
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: WEBHOOK_CONFIGURATION_NAME, labels: { app: 'switchyard' } },
    webhooks: (Object.keys(ADMISSION_KINDS) as AdmissionKind[]).map((k) => {
      const spec = ADMISSION_KINDS[k];
      // Deletes matter only where something may depend on the object.
      const operations = k === 'tier' || k === 'clustergroup' || k === 'group' ? ['CREATE', 'UPDATE', 'DELETE'] : ['CREATE', 'UPDATE'];
      return {
        name: spec.webhook,
        clientConfig: { service: { namespace: o.namespace, name: o.service, path: `${VALIDATE_PREFIX}${k}`, port: 443 }, caBundle },
        // IPPool v1alpha2 has another shape and this server does not convert: review v1beta1 only.
        rules: [{ apiGroups: ['crd.antrea.io'], apiVersions: k === 'ippool' ? ['v1beta1'] : ['*'], resources: [spec.resource], operations, scope: spec.namespaced ? 'Namespaced' : 'Cluster' }],
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: o.timeoutSeconds ?? 5,
      };
    }),
  } as unknown as KubeObject;
}
