// Shared setup for the integration suites: an embedded API server with the CRDs, RBAC for agents,
// node tokens, kubectl (from @switchyard/kube-api/testing), and a controller wired to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCrds } from '@switchyard/apis';
import type { KubeApiServer, KubeObject } from '@switchyard/kube-api';
import { startTestKubeApi, type Kubectl } from '@switchyard/kube-api/testing';
import YAML from 'yaml';
import { Controller, type ControllerOptions } from '../src/controller';
import { KubeConfigClient } from '@switchyard/kube';
import { eventually as waitForValue, eventuallyPasses as waitToPass, freePort, type ValueCallback } from '@switchyard/testbed';

export const NODE_TOKENS: Record<string, string> = { 'node-a': 'token-node-a', 'node-b': 'token-node-b', 'node-c': 'token-node-c' };

export { freePort };

export interface Cluster {
  api: KubeApiServer;
  kubectl: Kubectl;
  kube: KubeConfigClient;
  controllerPort: number;
  startController(extra?: Partial<ControllerOptions>): Promise<Controller>;
}

/** API server with CRDs, agent RBAC and the controller's Service/Endpoints on a fixed local port (`serviceCIDR`: the API server's Service ranges, one per family). */
export async function startCluster(opts: { serviceCIDR?: string } = {}): Promise<Cluster> {
  const tokens: Record<string, { user: string; groups: string[] }> = {};
  for (const [node, tok] of Object.entries(NODE_TOKENS)) tokens[tok] = { user: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] };
  const { api, kubectl, kubeConfig } = await startTestKubeApi({ tokens, crds: loadCrds() as unknown as KubeObject[], ...(opts.serviceCIDR !== undefined ? { serviceCIDR: opts.serviceCIDR } : {}) });
  const controllerPort = await freePort();
  const build = YAML.parseAllDocuments(readFileSync(join(__dirname, '../build/rbac.yaml'), 'utf8')).map((d) => d.toJSON() as unknown);
  await kubectl.apply(
    ...build,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'switchyard-agent-nodes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'switchyard-agent' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }] },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'switchyard', namespace: 'kube-system' }, spec: { ports: [{ port: 443, targetPort: controllerPort }] } },
    { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'switchyard', namespace: 'kube-system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: controllerPort }] }] },
  );
  const kube = new KubeConfigClient(kubeConfig);
  return {
    api,
    kubectl,
    kube,
    controllerPort,
    async startController(extra = {}) {
      const c = new Controller({ kube, port: controllerPort, host: '127.0.0.1', requestHeaderCaPem: api.caPem, informer: { initialBackoffMs: 50, maxBackoffMs: 500 }, ...extra });
      await c.start();
      return c;
    },
  };
}

/** Polls `fn` for its value (testbed's `eventually`: a throw, `undefined`, `null` or `false` mean "not yet"); propagation through watches is asynchronous. */
export const eventually = <T>(fn: ValueCallback<T>, timeoutMs = 10000): Promise<Exclude<T, undefined | null | false>> => waitForValue(fn, { timeoutMs });

/** Retries an assertion until it holds (testbed's `eventuallyPasses`). */
export const eventuallyPasses = (assertion: () => void | Promise<void>, timeoutMs = 10000): Promise<void> => waitToPass(assertion, { timeoutMs });

export function podManifest(ns: string, name: string, node: string, ip: string, labels: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, name: 'http' }] }] } };
}

/** Create a pod and set its status IP (the kubelet's job). */
export async function createPod(c: Cluster, ns: string, name: string, node: string, ip: string, labels: Record<string, string>): Promise<void> {
  await c.kube.request('POST', `/api/v1/namespaces/${ns}/pods`, podManifest(ns, name, node, ip, labels));
  await c.kube.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } }, 'application/merge-patch+json');
}
