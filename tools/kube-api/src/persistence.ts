// Optional data directory: snapshot-on-write of every object as one JSON file, loaded on start.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

  /** Load the last snapshot into the store; returns false when there was none. */
  load(): boolean {
    if (!existsSync(this.file)) return false;
    const snap = JSON.parse(readFileSync(this.file, 'utf8')) as StoreSnapshot;
    this.store.restore(snap);
    return true;
  }

  /** Write after each batch of changes (coalesced to one write per event-loop turn). */
  start(): void {
    this.unsubscribe = this.store.subscribe(() => {
      if (this.pending) return;
      this.pending = true;
      setImmediate(() => {
        this.pending = false;
        this.flush();
      });
    });
  }

  flush(): void {
    try {
      const tmp = `${this.file}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.store.snapshot()));
      renameSync(tmp, this.file);
    } catch (e) {
      this.logger.error({ err: e, file: this.file }, 'snapshot write failed');
    }
  }

  stop(): void {
    this.unsubscribe();
    this.flush();
  }
}
