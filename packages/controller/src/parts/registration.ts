// The `apiService` and `webhookConfiguration` parts: objects that send the API server's requests
// to this process (the APIService of the read API, the ValidatingWebhookConfiguration of the
// admission webhook), created or updated with this controller's CA once the server listens.
import type { KubeClient } from '@switchyard/kube';
import type { Part, PartHealth } from '@switchyard/runtime';
import { CONTROLPLANE_GROUP, CONTROLPLANE_VERSION } from '../server';
import { upsert } from '../upsert';
import { webhookConfiguration, WEBHOOK_CONFIGURATION_NAME } from '../webhook';

/** Where an object is written and what it is. */
export interface RegisteredObject {
  path: string;
  collection: string;
  body: Record<string, unknown>;
}

/** One object registered at sync; it stays after stop (the next instance updates it). */
export class Registration implements Part {
  private state: 'new' | 'registered' | 'stopped' = 'new';

  constructor(
    readonly name: string,
    private readonly kube: KubeClient,
    /** Built at sync, when the CA is loaded. */
    private readonly object: () => RegisteredObject,
  ) {}

  async start(): Promise<void> {
    // The server does not listen yet: see sync.
  }

  async sync(): Promise<void> {
    const o = this.object();
    await upsert(this.kube, o.path, o.collection, o.body);
    this.state = 'registered';
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
  }

  health(): PartHealth {
    return this.state === 'registered' ? { ok: true, detail: 'registered' } : { ok: false, detail: this.state === 'new' ? 'not registered' : 'stopped' };
  }
}

/** The APIService `v1beta2.controlplane.switchyard.io` through the controller's Service, port 443. */
export function apiServiceObject(namespace: string, service: string, caPem: string): RegisteredObject {
  const name = `${CONTROLPLANE_VERSION}.${CONTROLPLANE_GROUP}`;
  return {
    path: `/apis/apiregistration.k8s.io/v1/apiservices/${name}`,
    collection: '/apis/apiregistration.k8s.io/v1/apiservices',
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name, labels: { app: 'switchyard' } },
      spec: {
        group: CONTROLPLANE_GROUP,
        version: CONTROLPLANE_VERSION,
        service: { namespace, name: service, port: 443 },
        caBundle: Buffer.from(caPem).toString('base64'),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  };
}

/** The ValidatingWebhookConfiguration of the admission webhook, through the controller's Service, port 443. */
export function webhookConfigurationObject(namespace: string, service: string, caPem: string): RegisteredObject {
  return {
    path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK_CONFIGURATION_NAME}`,
    collection: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    body: webhookConfiguration({ namespace, service, caPem }) as unknown as Record<string, unknown>,
  };
}
