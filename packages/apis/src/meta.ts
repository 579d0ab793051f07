/** Kubernetes object metadata shapes shared by every kind (meta/v1), as plain data. */

/** apiVersion + kind header carried by every top-level object. */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/** A reference from a dependent object to its owner (meta/v1 OwnerReference). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Server-side apply bookkeeping entry; kept opaque beyond its header fields. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** meta/v1 ObjectMeta. Timestamps are RFC 3339 strings as they appear on the wire. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

/** meta/v1 ListMeta. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** A list of objects of one kind (e.g. `PodList`). */
export interface List<T> extends TypeMeta {
  metadata?: ListMeta;
  items: T[];
}

/** Operators of a set-based label selector requirement. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** One set-based requirement of a label selector. `values` must be empty for Exists/DoesNotExist. */
export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

/**
 * meta/v1 LabelSelector. An empty selector (`{}`) selects everything; an absent selector
 * selects nothing. Both parts are ANDed.
 */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** Status of a condition. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** meta/v1 Condition (also used loosely by CRD status blocks). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}

/** A value that is either an integer or a string (e.g. a port number or a named port). */
export type IntOrString = number | string;

/** A typed reference to another object (core/v1 ObjectReference). */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** Any Kubernetes object: header plus metadata. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
}
