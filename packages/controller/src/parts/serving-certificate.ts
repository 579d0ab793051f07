// The `pki` part: the controller's CA (kept in a Secret, published in a ConfigMap) and this run's
// serving certificate, or the key pair of option `pki`.
import type { Part, PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { ControllerError } from '../errors';
import { defaultSans, ensureClusterPki, type ControllerPki } from '../pki';

export class ServingCertificate implements Part {
  readonly name = 'pki';
  private loaded: ControllerPki | undefined;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {}

  /** The CA and the serving key pair (from start on). */
  get pki(): ControllerPki {
    if (!this.loaded) throw new ControllerError('NOT_STARTED', 'the serving certificate is made when the controller starts', 'pki');
    return this.loaded;
  }

  async start(): Promise<void> {
    const { options: o, kube, namespace, serviceName } = this.ctx;
    const location = { namespace, secretName: `${serviceName}-controller-ca`, configMapName: o.caConfigMapName ?? 'switchyard-ca' };
    this.loaded = o.pki ?? (await ensureClusterPki(kube, location, [...defaultSans(namespace, serviceName), ...(o.extraSans ?? [])]));
  }

  async stop(): Promise<void> {
    // Nothing to release; the key pair stays readable (tests read the CA after a stop).
    this.stopped = true;
  }

  health(): PartHealth {
    if (this.stopped) return { ok: false, detail: 'stopped' };
    return this.loaded ? { ok: true, detail: 'CA and serving certificate loaded' } : { ok: false, detail: 'not loaded' };
  }
}
