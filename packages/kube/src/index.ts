/**
 * @switchyard/kube: a small Kubernetes REST client over any KubeConfig-shaped source, such as
 * @kubernetes/client-node's KubeConfig (kubeconfig files, in-cluster config, client certificates,
 * tokens; client-node is not a dependency, see {@link KubeConfigSource}), and a resilient list+watch
 * informer: resourceVersion resumption, relist with a cache diff on 410 Gone, exponential backoff
 * with jitter, a liveness timer, and field/label selectors. Time goes through an injectable clock.
 * Shared by the controller and the agent.
 * @packageDocumentation
 */
export { KubeConfigClient, collectionPath } from './client';
export type { KubeClient, KubeConfigSource, WatchStream } from './client';
export { Informer } from './informer';
export type { InformerOptions, InformerEvent, InformerStats, KubeObject, ResourceSpec } from './informer';
export { systemClock, ManualClock } from './clock';
export type { Clock, TimerHandle } from './clock';
export { KubeRequestError } from './errors';
export { KubeDelegatedAuth, nodeOf, NODE_NAME_EXTRA } from './auth';
export type { RequestAuth, UserInfo, AccessAttributes, DelegatedAuthOptions } from './auth';
export { silentLogger } from './logger';
export type { Logger } from './logger';
