// A scripted KubeClient for informer tests: LIST answers from `objects`, watches are controlled streams.
import type { KubeClient, KubeObject, WatchStream } from '../src';
import { KubeRequestError } from '../src';

export class FakeWatch {
  private queue: ({ type: string; object: Record<string, unknown> } | null | Error)[] = [];
  private wake: (() => void) | undefined;
  aborted = false;
  constructor(readonly path: string) {}
  push(type: string, object: Record<string, unknown>): void {
    this.queue.push({ type, object });
    this.wake?.();
  }
  end(): void {
    this.queue.push(null);
    this.wake?.();
  }
  fail(e: Error): void {
    this.queue.push(e);
    this.wake?.();
  }
  stream(): WatchStream {
    const gen = async function* (self: FakeWatch): AsyncGenerator<{ type: string; object: Record<string, unknown> }> {
      for (;;) {
        while (self.queue.length === 0 && !self.aborted) await new Promise<void>((r) => (self.wake = r));
        if (self.aborted) return;
        const next = self.queue.shift();
        if (next === null || next === undefined) return;
        if (next instanceof Error) throw next;
        yield next;
      }
    };
    return { events: gen(this), abort: () => { this.aborted = true; this.wake?.(); } };
  }
}

export class FakeKube implements KubeClient {
  objects: KubeObject[] = [];
  listRv = '10';
  lists: string[] = [];
  watches: FakeWatch[] = [];
  watchFailures: Error[] = [];
  private watchWaiters: ((w: FakeWatch) => void)[] = [];

  async request<T>(method: string, path: string): Promise<T> {
    if (method !== 'GET') throw new Error(`unexpected ${method}`);
    this.lists.push(path);
    return { items: structuredClone(this.objects), metadata: { resourceVersion: this.listRv } } as T;
  }

  async watch(path: string): Promise<WatchStream> {
    const f = this.watchFailures.shift();
    if (f) throw f;
    const w = new FakeWatch(path);
    this.watches.push(w);
    for (const r of this.watchWaiters.splice(0)) r(w);
    return w.stream();
  }

  /** The next watch opened (or the latest if `n` are already open). */
  nextWatch(n: number): Promise<FakeWatch> {
    if (this.watches.length >= n) return Promise.resolve(this.watches[n - 1] as FakeWatch);
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.watches.length >= n) resolve(this.watches[n - 1] as FakeWatch);
        else this.watchWaiters.push(check);
      };
      this.watchWaiters.push(check);
    });
  }
}

export const gone = (): KubeRequestError => new KubeRequestError('GET', '/x', 410, { message: 'too old' });

export function pod(name: string, rv: string, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv, labels } };
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
