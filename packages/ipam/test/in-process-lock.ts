// A DirLock for one process: the store's unit tests use it so that they start no helper process.
import type { DirLock } from '@switchyard/ipam';

/**
 * Mutual exclusion among the users of this object in this process, without flock(2): enough for
 * the store's own logic (ordering, group commit, lingering). Cross-process locking, with the perl
 * helper and util-linux flock, is tested in test-integration/.
 */
export class InProcessLock implements DirLock {
  private tail: Promise<void> = Promise.resolve();
  private held: (() => void) | undefined;

  async acquire(): Promise<void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.held = release;
  }

  release(): void {
    const release = this.held;
    this.held = undefined;
    release?.();
  }

  async close(): Promise<void> {
    this.release();
  }
}
