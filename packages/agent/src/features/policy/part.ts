/**
 * The policies part: the controlplane stream and the NetworkPolicy realization it drives, with
 * what answers the pipeline's packet-ins (Reject replies, np.log, FQDN learning). The policies
 * cached by the previous run are primed into the first round, so they are enforced from the start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentContext } from '../../context';
import { AgentError } from '../../errors';
import type { Part, PartHealth } from '@switchyard/runtime';
import { PolicyAuditLog } from './audit-log';
import { NetworkPolicyController, loadPolicyView } from './controller';
import { FqdnController } from './fqdn';
import { RejectResponder } from './reject';
import type { PacketInChannel } from '@switchyard/openflow';
import type { FlowSync } from '../../flow-sync';

/** File under the data dir holding the last controlplane view. */
export const POLICY_CACHE_FILE = 'policy-cache.json';

export class PolicyEnforcement implements Part {
  readonly name = 'policies';
  private rejectResponder: RejectResponder | undefined;
  private fqdnController: FqdnController | undefined;
  private audit: PolicyAuditLog | undefined;
  private controller: NetworkPolicyController | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly node: { readonly openflow: PacketInChannel; readonly flows: FlowSync },
  ) {}

  get policies(): NetworkPolicyController {
    return this.opened(this.controller);
  }
  get rejects(): RejectResponder {
    return this.opened(this.rejectResponder);
  }
  get fqdn(): FqdnController {
    return this.opened(this.fqdnController);
  }
  get auditLog(): PolicyAuditLog {
    return this.opened(this.audit);
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const openflow = this.node.openflow;
    const flows = this.node.flows;
    const clock = o.clock ? { clock: o.clock } : {};
    this.rejectResponder = new RejectResponder(openflow, { logger: log });
    // FQDN rules: DNS answers to the pods they select are learned before they are delivered.
    this.fqdnController = new FqdnController(openflow, flows, { logger: log, ...clock });
    this.audit = new PolicyAuditLog(
      { file: o.policyLogFile, logger: log, ...clock },
      {
        policies: () => flows.get('policies'),
        conjIds: () => flows.conjIds,
        tableName: (id) => flows.nodeFlows?.pipeline.nameOf(id),
        rulePriority: (table, conjId) => flows.flows.find((f) => f.table === table && f.match.conjId === conjId)?.priority,
      },
      openflow,
    );
    const cacheFile = join(o.dataDir, POLICY_CACHE_FILE);
    const cp = o.controlplane;
    this.controller = new NetworkPolicyController({
      nodeName: o.nodeName,
      flows,
      view: loadPolicyView(cacheFile, log),
      cacheFile,
      ...(cp
        ? {
            controlplane: {
              url: cp.url,
              ...(cp.caPem !== undefined ? { caPem: cp.caPem } : {}),
              ...(cp.serverName !== undefined ? { serverName: cp.serverName } : {}),
              ...(cp.backoff !== undefined ? { backoff: cp.backoff } : {}),
              ...(cp.tokenFile !== undefined
                ? { token: () => readFileSync(cp.tokenFile!, 'utf8').trim() }
                : cp.token !== undefined
                  ? { token: cp.token }
                  : {}),
            },
          }
        : {}),
      logger: log,
      ...(o.clock !== undefined ? { clock: o.clock } : {}),
    });
    this.controller.primeState();
  }

  /** Opens the controlplane stream (when a controller is configured). */
  async sync(): Promise<void> {
    this.policies.start();
  }

  async stop(): Promise<void> {
    await this.controller?.stop();
    this.rejectResponder?.stop();
    this.audit?.stop();
    this.fqdnController?.stop();
  }

  health(): PartHealth {
    const c = this.controller;
    if (!c) return { ok: false, detail: 'not started' };
    const n = c.view.counts;
    const held = `${n.policies} policies, ${n.addressGroups} address groups, ${n.appliedToGroups} appliedTo groups`;
    if (c.lastError !== undefined) return { ok: false, detail: `${held}; last realization failed: ${c.lastError instanceof Error ? c.lastError.message : String(c.lastError)}` };
    if (c.client && !c.client.connected) return { ok: false, detail: `${held}; controlplane stream down` };
    return { ok: true, detail: c.client ? held : `${held} (cached; no controller configured)` };
  }

  private opened<T>(value: T | undefined): T {
    if (value === undefined) throw new AgentError('NOT_STARTED', 'the policies part is used before it started', this.name, 'policies');
    return value;
  }
}
