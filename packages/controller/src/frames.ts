// Watch-event frames encoded once per state version and shared by every watcher that receives them.
import { encodeWatchEventFrame, type controlplane } from '@switchyard/apis';

/** Options of {@link SharedFrames}. */
export interface SharedFramesOptions {
  /** Bytes of frames kept before starting over (default 4 MiB). */
  maxBytes?: number;
}

/** Frames shorter than this come out of Node's shared 8 KiB Buffer pool slabs. */
const POOLED_BELOW = 4096;
const CHUNK_BYTES = 256 * 1024;

/**
 * Frames of one version of the controlplane state (a resourceVersion), by event object: the hub
 * hands the same policy or address-group object to every node that holds it, so an object sent to
 * many watchers is encoded once (an address group every node holds: once instead of once per
 * node). Bounded: another version, or more than `maxBytes` of frames, drops what is held.
 *
 * A small frame is copied into chunks of this cache's own, because the encoder cuts it from one
 * of Node's 8 KiB pool slabs and holding it would pin the whole slab: the earlier cache (each
 * policy's frame for the policy's life) held 60 MB of slabs after 1,000 initial syncs, and that
 * external memory set off full collections of the compiler's heap during the sync.
 */
export class SharedFrames {
  private readonly maxBytes: number;
  private version: string | undefined;
  private readonly frames = new Map<object, { type: string; kind: string; frame: Uint8Array }>();
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;
  private held = 0;

  constructor(options: SharedFramesOptions = {}) {
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  }

  /** The frame of `e` at `version`; encoded on first use at that version. */
  frameOf(e: controlplane.WatchEvent, version: string): Uint8Array {
    // Deletions, bookmarks and errors are made per node: nothing to share.
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return encodeWatchEventFrame(e);
    if (version !== this.version) {
      this.clear();
      this.version = version;
    }
    const hit = this.frames.get(e.object);
    if (hit && hit.type === e.type && hit.kind === e.kind) return hit.frame;
    const encoded = encodeWatchEventFrame(e);
    if (this.held + encoded.length > this.maxBytes) this.clear();
    const frame = encoded.length < POOLED_BELOW ? this.copy(encoded) : encoded;
    this.held += frame.length;
    this.frames.set(e.object, { type: e.type, kind: e.kind, frame });
    return frame;
  }

  /** Frames and bytes held now (for tests and metrics). */
  get size(): { frames: number; bytes: number } {
    return { frames: this.frames.size, bytes: this.held };
  }

  private copy(frame: Uint8Array): Uint8Array {
    if (this.used + frame.length > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + frame.length);
    out.set(frame);
    this.used += frame.length;
    return out;
  }

  private clear(): void {
    this.frames.clear();
    this.held = 0;
    this.chunk = new Uint8Array(0);
    this.used = 0;
  }
}
