// ExternalNode -> ExternalEntity: one entity per interface (Antrea's naming), labels copied,
// endpoints from the interface IPs, owned by the ExternalNode; plus its AntreaAgentInfo.
import { createHash } from 'node:crypto';
import type { ExternalEntity, ExternalNode } from '@switchyard/apis';
import { KubeRequestError } from './errors';
import type { KubeObject } from '@switchyard/kube';
import type { KubeClient } from '@switchyard/kube';
import { silentLogger, type Logger } from '@switchyard/runtime';

/** Label-free API version of ExternalEntity objects the controller writes. */
export const EXTERNAL_ENTITY_API_VERSION = 'crd.antrea.io/v1alpha2';

/**
 * Name of the ExternalEntity for one interface: the ExternalNode's name when it has a single
 * interface without a name, else `<name>-<first 5 hex digits of sha1(interface name)>` as Antrea does.
 */
export function externalEntityName(node: ExternalNode, ifName: string | undefined): string {
  const name = node.metadata.name ?? '';
  if (node.spec.interfaces.length === 1 && !ifName) return name;
  return `${name}-${createHash('sha1').update(ifName ?? '').digest('hex').slice(0, 5)}`;
}

/** The ExternalEntities an ExternalNode should have (pure). */
export function externalEntitiesFor(node: ExternalNode): ExternalEntity[] {
  return node.spec.interfaces.map((itf) => {
    const metadata: ExternalEntity['metadata'] = {
      name: externalEntityName(node, itf.name),
      namespace: node.metadata.namespace ?? 'default',
      ownerReferences: [{ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', name: node.metadata.name ?? '', uid: node.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    };
    if (node.metadata.labels && Object.keys(node.metadata.labels).length > 0) metadata.labels = { ...node.metadata.labels };
    return {
      apiVersion: EXTERNAL_ENTITY_API_VERSION,
      kind: 'ExternalEntity',
      metadata,
      spec: { endpoints: itf.ips.map((ip) => (itf.name ? { ip, name: itf.name } : { ip })), externalNode: node.metadata.name ?? '' },
    };
  });
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Reconciles ExternalEntities and AntreaAgentInfos with ExternalNodes through the Kubernetes API. */
export class ExternalNodeController {
  private readonly log: Logger;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly kube: KubeClient,
    /** Current ExternalEntities (an informer cache), to find stale ones. */
    private readonly entities: ReadonlyMap<string, KubeObject>,
    logger?: Logger,
  ) {
    this.log = logger ?? silentLogger;
  }

  /** Queue a reconcile for an ExternalNode event (processed one at a time, in order). */
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', node: ExternalNode): void {
    this.chain = this.chain.then(() => this.reconcile(type, node)).catch((e: unknown) => {
      this.log.error({ externalNode: `${node.metadata.namespace ?? ''}/${node.metadata.name ?? ''}`, err: (e as Error).message }, 'ExternalNode reconcile failed');
    });
  }

  /** Resolves when queued reconciles are done. */
  idle(): Promise<void> {
    return this.chain;
  }

  private async reconcile(type: 'ADDED' | 'MODIFIED' | 'DELETED', node: ExternalNode): Promise<void> {
    const ns = node.metadata.namespace ?? 'default';
    const base = `/apis/crd.antrea.io/v1alpha2/namespaces/${ns}/externalentities`;
    const desired = type === 'DELETED' ? [] : externalEntitiesFor(node);
    const wanted = new Set(desired.map((e) => e.metadata.name));
    for (const ee of desired) {
      const cur = this.entities.get(`${ns}/${ee.metadata.name ?? ''}`) as ExternalEntity | undefined;
      if (cur && same(cur.spec, ee.spec) && same(cur.metadata.labels, ee.metadata.labels) && same(cur.metadata.ownerReferences?.[0]?.uid, node.metadata.uid)) continue;
      try {
        if (!cur) await this.kube.request('POST', base, ee);
        else await this.kube.request('PUT', `${base}/${ee.metadata.name ?? ''}`, { ...ee, metadata: { ...ee.metadata, resourceVersion: cur.metadata.resourceVersion } });
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && !cur) await this.kube.request('PUT', `${base}/${ee.metadata.name ?? ''}`, ee);
        else throw e;
      }
    }
    // Entities this node owned that it no longer wants (an interface removed or renamed).
    for (const obj of this.entities.values()) {
      const ee = obj as unknown as ExternalEntity;
      if ((ee.metadata.namespace ?? '') !== ns || wanted.has(ee.metadata.name)) continue;
      if (!ee.metadata.ownerReferences?.some((o) => o.kind === 'ExternalNode' && o.name === node.metadata.name)) continue;
      await this.deleteIgnoringMissing(`${base}/${ee.metadata.name ?? ''}`);
    }
    await this.syncAgentInfo(type, node);
  }

  private async syncAgentInfo(type: string, node: ExternalNode): Promise<void> {
    const name = node.metadata.name ?? '';
    const path = `/apis/crd.antrea.io/v1beta1/antreaagentinfos/${name}`;
    if (type === 'DELETED') return this.deleteIgnoringMissing(path);
    try {
      await this.kube.request('GET', path);
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
      await this.kube.request('POST', '/apis/crd.antrea.io/v1beta1/antreaagentinfos', {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaAgentInfo',
        metadata: { name },
        nodeRef: { kind: 'ExternalNode', name, namespace: node.metadata.namespace ?? 'default' },
      });
    }
  }

  private async deleteIgnoringMissing(path: string): Promise<void> {
    try {
      await this.kube.request('DELETE', path);
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
    }
  }
}
