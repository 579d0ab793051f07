// The controller is this list of parts. Each entry says when its part runs (from ControllerOptions),
// what it starts after, and how it is made; a part that reads Kubernetes resources declares them
// (`watches`) and the controller runs one informer per resource for all of them.
import type { PartEntry } from '@switchyard/runtime';
import type { ControllerContext } from './context';
import { IPsecCertificateSigner } from './ipsec-signer';
import { Admission } from './parts/admission';
import { ControllerApi } from './parts/controller-api';
import { EgressController } from './parts/egress';
import { EgressGroups } from './parts/egress-groups';
import { ExternalIPAllocator } from './external-ip-allocator';
import { ControllerInfoHeartbeat } from './parts/controller-info';
import { ExternalNodes } from './parts/external-nodes';
import { IPPools } from './parts/ip-pools';
import { LabelIdentities } from './parts/label-identities';
import { NodeIpam } from './parts/node-ipam';
import { PolicyCore } from './parts/policy-core';
import { apiServiceObject, Registration, webhookConfigurationObject } from './parts/registration';
import { ServingCertificate } from './parts/serving-certificate';
import { ServiceExternalIP } from './parts/service-external-ip';
import { TraceflowController } from './parts/traceflow';

/**
 * The controller's parts in start order. Parts are started in this order, then synced in this
 * order (so every `start` has run before the first `sync`), and stopped in reverse; a start that
 * fails stops what it reached. `start` loads and follows (certificates, informers, allocators);
 * `sync` publishes (the hub is marked synced, the server listens, registrations, the heartbeat).
 */
export const CONTROLLER_PARTS: PartEntry<ControllerContext>[] = [
  { name: 'pki', make: (ctx) => new ServingCertificate(ctx) },
  { name: 'policy', make: (ctx) => new PolicyCore(ctx) },
  {
    name: 'labelIdentities',
    enabled: (ctx) => Boolean(ctx.options.stretchedNetworkPolicy),
    after: ['policy'],
    make: (ctx, parts) => new LabelIdentities(ctx, parts.require<PolicyCore>('policy')),
  },
  // Lists every declared resource; the parts after it find their caches complete.
  { name: 'informers', make: (ctx) => ctx.informers },
  { name: 'externalNode', enabled: (ctx) => ctx.options.externalNode !== false, after: ['informers'], make: (ctx) => new ExternalNodes(ctx) },
  {
    name: 'nodeIpam',
    enabled: (ctx) => Boolean(ctx.options.nodeIPAM),
    after: ['informers'],
    make: (ctx) => new NodeIpam(ctx, ctx.options.nodeIPAM ?? { clusterCIDRs: [] }),
  },
  { name: 'ipPools', enabled: (ctx) => Boolean(ctx.options.ipPools), after: ['informers'], make: (ctx) => new IPPools(ctx) },
  { name: 'serviceExternalIP', enabled: (ctx) => Boolean(ctx.options.serviceExternalIP), after: ['informers'], make: (ctx) => new ServiceExternalIP(ctx) },
  {
    // After ServiceExternalIP: one allocator for both, so an IP is never given to a Service and an Egress.
    name: 'egress',
    enabled: (ctx) => Boolean(ctx.options.egress),
    after: ['informers', 'serviceExternalIP'],
    make: (ctx, parts) => new EgressController(ctx, parts.get<ServiceExternalIP>('serviceExternalIP')?.allocator ?? new ExternalIPAllocator()),
  },
  {
    // The members of every Egress, served to the agents through the hub (egress-groups.ts).
    name: 'egressGroups',
    enabled: (ctx) => Boolean(ctx.options.egress),
    after: ['policy', 'informers'],
    make: (ctx, parts) => new EgressGroups(ctx, parts.require<PolicyCore>('policy').hub),
  },
  { name: 'traceflow', enabled: (ctx) => ctx.options.traceflow !== false, after: ['informers'], make: (ctx) => new TraceflowController(ctx) },
  {
    name: 'ipsecSigner',
    enabled: (ctx) => Boolean(ctx.options.ipsecCSRSigner),
    make: (ctx) =>
      new IPsecCertificateSigner({
        kube: ctx.kube,
        namespace: ctx.namespace,
        caSecretName: `${ctx.serviceName}-ipsec-ca`,
        // Antrea's defaults; the entry runs only with the option set.
        ...(ctx.options.ipsecCSRSigner ?? { autoApprove: true, selfSignedCA: true }),
        ...(ctx.options.informer ? { informer: ctx.options.informer } : {}),
        clock: ctx.clock,
        logger: ctx.log,
      }),
  },
  { name: 'admission', make: (ctx) => new Admission(ctx) },
  {
    name: 'server',
    after: ['pki', 'policy', 'admission'],
    make: (ctx, parts) => {
      const admission = parts.get<Admission>('admission');
      return new ControllerApi(ctx, { pki: parts.require<ServingCertificate>('pki'), policy: parts.require<PolicyCore>('policy'), ...(admission ? { admission } : {}) });
    },
  },
  {
    name: 'apiService',
    enabled: (ctx) => ctx.options.registerAPIService !== false,
    after: ['pki', 'server'],
    make: (ctx, parts) => new Registration('apiService', ctx.kube, () => apiServiceObject(ctx.namespace, ctx.serviceName, parts.require<ServingCertificate>('pki').pki.caPem)),
  },
  {
    // Both reach this process through the same Service: an embedded controller the Service does
    // not point at must not register a webhook that fails every write.
    name: 'webhookConfiguration',
    enabled: (ctx) => ctx.options.registerWebhooks ?? ctx.options.registerAPIService !== false,
    after: ['pki', 'admission', 'server'],
    make: (ctx, parts) => new Registration('webhookConfiguration', ctx.kube, () => webhookConfigurationObject(ctx.namespace, ctx.serviceName, parts.require<ServingCertificate>('pki').pki.caPem)),
  },
  { name: 'controllerInfo', after: ['policy', 'server'], make: (ctx, parts) => new ControllerInfoHeartbeat(ctx, { policy: parts.require<PolicyCore>('policy'), server: parts.require<ControllerApi>('server') }) },
];
