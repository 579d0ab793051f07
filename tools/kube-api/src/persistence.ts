// Optional data directory: snapshot-on-write of every object as one JSON file, loaded on start.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { ObjectStore, StoreSnapshot } from './store';
import type { Logger } from './types';

export class SnapshotFile {
  private pending = false;
  private readonly file: string;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly dir: string,
    private readonly store: ObjectStore,
    private readonly logger: Logger,
  ) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, 'objects.json');
  }

  /**
   * Load the last snapshot into the store; returns false when there was none. A file that is not a
   * whole snapshot (cut short by a disk fault: writes themselves are atomic) fails with an error
   * naming it, instead of starting with an empty or partial store.
   */
  load(): boolean {
    if (!existsSync(this.file)) return false;
    let snap: StoreSnapshot;
    try {
      snap = JSON.parse(readFileSync(this.file, 'utf8')) as StoreSnapshot;
      if (typeof snap?.resourceVersion !== 'number' || typeof snap.objects !== 'object' || snap.objects === null) throw new Error('no resourceVersion and objects');
    } catch (e) {
      throw new Error(`${this.file} is not a whole object snapshot (${e instanceof Error ? e.message : String(e)}); move it away to start with an empty store`);
    }
    this.store.restore(snap);
    return true;
  }

  /** Write after each batch of changes (coalesced to one write per event-loop turn). */
  start(): void {
    this.unsubscribe = this.store.subscribe(() => {
      if (this.pending) return;
      this.pending = true;
      setImmediate(() => this.flushPending());
    });
  }

  /** Writes now if a change is waiting for its coalesced write (before a write is acknowledged). */
  flushPending(): void {
    if (!this.pending) return;
    this.pending = false;
    this.flush();
  }

  flush(): void {
    try {
      // A temporary file, fsync, rename: a crash leaves the previous snapshot or this one, whole.
      writeFileAtomic.sync(this.file, JSON.stringify(this.store.snapshot()), { mode: 0o600 });
    } catch (e) {
      this.logger.error({ err: e, file: this.file }, 'snapshot write failed');
    }
  }

  stop(): void {
    this.unsubscribe();
    this.flush();
  }
}
