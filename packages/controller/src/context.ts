// What every part of the controller is made from: the options, the Kubernetes client, clock,
// logger, metrics registry, the shared informers, and the health of the whole controller.
import type { KubeClient } from '@switchyard/kube';
import { silentLogger, systemClock, type Clock, type Logger, type PartsHealth } from '@switchyard/runtime';
import { ClusterInformers } from './informers';
import { MetricsRegistry } from './metrics';
import type { ControllerOptions } from './options';

/** Version reported in AntreaControllerInfo and /controllerinfo. */
export const CONTROLLER_VERSION = '0.1.0';

/** What an entry of `CONTROLLER_PARTS` makes its part from. */
export interface ControllerContext {
  readonly options: ControllerOptions;
  readonly kube: KubeClient;
  /** Namespace of the controller's Service, Secrets and ConfigMaps (option `namespace`, default kube-system). */
  readonly namespace: string;
  /** The Service agents and the API server reach the controller through (option `serviceName`, default switchyard). */
  readonly serviceName: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: MetricsRegistry;
  /** The informers of every resource the parts declare (`watches`), and the part that runs them. */
  readonly informers: ClusterInformers;
  /** Each part's health, in start order (what `/healthz?verbose` answers). */
  health(): PartsHealth;
}

/** The context of one controller; `health` reads the parts once they are made. */
export function controllerContext(options: ControllerOptions, health: () => PartsHealth): ControllerContext {
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? silentLogger;
  const metrics = new MetricsRegistry();
  return {
    options,
    kube: options.kube,
    namespace: options.namespace ?? 'kube-system',
    serviceName: options.serviceName ?? 'switchyard',
    clock,
    log,
    metrics,
    informers: new ClusterInformers(options.kube, { ...options.informer, clock, logger: log }, metrics),
    health,
  };
}
