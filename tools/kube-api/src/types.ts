// Plain shapes of the Kubernetes objects the server stores and the clock/logger it takes.

import type { ObjectMeta as ApisObjectMeta, OwnerReference } from '@switchyard/apis';

export type { OwnerReference };

/** meta/v1 ObjectMeta from @switchyard/apis, open to fields this server does not interpret. */
export type ObjectMeta = ApisObjectMeta & { [key: string]: unknown };

/** Any Kubernetes object as stored: apiVersion/kind/metadata plus free-form fields. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

// The clock and logger every Switchyard package shares.
export { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 3339 at second precision, as metav1.Time serializes; `at` in epoch milliseconds. */
export function rfc3339(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An authenticated user, as kube-apiserver's user.Info. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
