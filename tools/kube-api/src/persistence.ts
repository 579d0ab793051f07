// Optional data directory: every object as one JSON snapshot, written durably before a change is
// visible, loaded on start.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { KubeApiError } from './errors';
import type { ObjectStore, StoreSnapshot } from './store';

/** Replaces a file durably (the default is @switchyard/durable-file's); tests inject a failing one. */
export type DurableWriter = (file: string, data: string, options: { mode: number }) => void;

export class SnapshotFile {
  private readonly file: string;

  constructor(
    private readonly dir: string,
    private readonly store: ObjectStore,
    private readonly write: DurableWriter = writeFileDurableSync,
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

  /**
   * Writes the state now, then makes every later change wait for its snapshot: a change that
   * cannot be written fails (500 InternalError naming the file), stays invisible (no watch
   * event) and is undone, so what the server serves is always what the disk holds.
   * @throws KubeApiError when the first write fails
   */
  start(): void {
    this.flush();
    this.store.persistWith((snap) => this.writeSnapshot(snap));
  }

  /** Writes the current state. @throws KubeApiError InternalError naming the file and the cause */
  flush(): void {
    this.writeSnapshot(this.store.snapshot());
  }

  /** Every change is already on disk; only detaches. */
  stop(): void {
    this.store.persistWith(undefined);
  }

  private writeSnapshot(snap: StoreSnapshot): void {
    try {
      // Temporary file, fsync, rename, directory fsync: a crash leaves the previous snapshot or this one, whole.
      this.write(this.file, JSON.stringify(snap), { mode: 0o600 });
    } catch (e) {
      throw new KubeApiError('InternalError', `Internal error occurred: the change could not be persisted to ${this.file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
