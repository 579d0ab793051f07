// The input objects the engine holds (accepted by validation, or refused), by object key, and the
// lookups over them that validation and compilation read (tiers, groups, Services, Namespaces).
import type { ClusterGroup, ExternalEntity, Group, GroupSpec, LabelIdentity, Namespace, Node, Service, Tier } from '@switchyard/apis/types';
import type { CompileContext } from './compile';
import type { ClusterObject, ObjectKind, RejectedObject } from './types';
import { STATIC_TIERS, type ValidationContext } from './validate';

/**
 * Input objects by kind and key (`Kind/name`, `Kind/namespace/name`). Pods and policies are not
 * stored here: a pod is kept in its slot of the member index, a policy in its compiled record
 * (the engine stores them there).
 */
export class ClusterInputs {
  readonly namespaces = new Map<string, Namespace>();
  readonly nodes = new Map<string, Node>();
  readonly externalEntities = new Map<string, ExternalEntity>();
  readonly services = new Map<string, Service>();
  readonly tiers = new Map<string, Tier>();
  readonly clusterGroups = new Map<string, ClusterGroup>();
  readonly groupObjects = new Map<string, Group>();
  readonly labelIdentities = new Map<string, LabelIdentity>();
  /** Kinds the engine accepts but compiles nothing from (Endpoints, ServiceAccounts, ...). */
  private readonly others = new Map<string, ClusterObject>();
  /** Objects whose latest version validation refused, by key. */
  private readonly refused = new Map<string, RejectedObject>();

  /** What validation reads: tier priorities and the children of groups. */
  readonly validation: ValidationContext = {
    tierPriority: (n) => this.tierPriority(n),
    tierWithPriority: (p) => {
      for (const [n, v] of Object.entries(STATIC_TIERS)) if (v === p) return n;
      for (const t of this.tiers.values()) if (t.spec.priority === p) return t.metadata.name;
      return undefined;
    },
    childGroups: (ns, n) => (ns === undefined ? this.clusterGroups.get(`ClusterGroup/${n}`)?.spec.childGroups : this.groupObjects.get(`Group/${ns}/${n}`)?.spec.childGroups),
  };

  /** What compilation reads: tiers, groups, Services, Namespaces and label identities. */
  readonly compilation: CompileContext = {
    tierPriority: (n) => this.tierPriority(n),
    clusterGroup: (n): GroupSpec | undefined => this.clusterGroups.get(`ClusterGroup/${n}`)?.spec,
    group: (ns, n) => this.groupObjects.get(`Group/${ns}/${n}`)?.spec,
    service: (ns, n) => this.services.get(`Service/${ns}/${n}`),
    namespaces: () => [...this.namespaces.values()].map((n) => ({ name: n.metadata.name ?? '', labels: n.metadata.labels })),
    labelIdentities: () => [...this.labelIdentities.values()].filter((l) => l.spec?.label && l.spec.id !== undefined).map((l) => ({ label: l.spec.label as string, id: l.spec.id as number })),
  };

  /** Stores `obj` under `key` (undefined: forgets it); returns the version it replaces. */
  put(kind: ObjectKind, key: string, obj: ClusterObject | undefined): ClusterObject | undefined {
    const map = this.mapOf(kind);
    const prev = map.get(key);
    if (obj) map.set(key, obj);
    else map.delete(key);
    return prev;
  }

  /** The object stored under `key`, if any. */
  get(kind: ObjectKind, key: string): ClusterObject | undefined {
    return this.mapOf(kind).get(key);
  }

  /** Records that validation refused the latest version of `key` (undefined: it accepted it). */
  setRefused(key: string, rejected: RejectedObject | undefined): void {
    if (rejected) this.refused.set(key, rejected);
    else this.refused.delete(key);
  }

  /** Objects whose latest version was refused. */
  refusedObjects(): RejectedObject[] {
    return [...this.refused.values()];
  }

  private tierPriority(name: string): number | undefined {
    const s = STATIC_TIERS[name];
    if (s !== undefined) return s;
    return this.tiers.get(`Tier/${name}`)?.spec.priority;
  }

  private mapOf(kind: ObjectKind): Map<string, ClusterObject> {
    switch (kind) {
      case 'Namespace':
        return this.namespaces;
      case 'Node':
        return this.nodes;
      case 'ExternalEntity':
        return this.externalEntities;
      case 'Service':
        return this.services;
      case 'Tier':
        return this.tiers;
      case 'ClusterGroup':
        return this.clusterGroups;
      case 'Group':
        return this.groupObjects;
      case 'LabelIdentity':
        return this.labelIdentities;
      default:
        return this.others;
    }
  }
}
