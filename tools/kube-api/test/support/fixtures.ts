// Test fixtures: a CRD with a schema, two served versions and a status subresource; a fake clock.

import type { Clock } from '../../src/index';

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.switchyard.io' },
  spec: {
    group: 'example.switchyard.io',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                  ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', maximum: 65535 } } } },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
      { name: 'v1alpha1', served: true, storage: false, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

export function widget(name: string, spec: Record<string, unknown> = { size: 1 }, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'example.switchyard.io/v1beta1', kind: 'Widget', metadata: { name, ...metadata }, spec };
}

/** A clock whose timers fire only when the test advances time. */
export class FakeClock implements Clock {
  private t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private seq = 0;

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.t = start;
  }
  now(): Date {
    return new Date(this.t);
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  /** Move time forward, firing due timers in order at their own instants. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = target;
  }
}
