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

/** Time source; tests inject a fake one. */
export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** pino-compatible logger subset. */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 3339 at second precision, as metav1.Time serializes. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
