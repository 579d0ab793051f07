// Watch-event encodings shared by every watcher that receives the same object at one state
// version, and the initial state written as one length-delimited buffer.
import { WatchEventEncoder, type controlplane } from '@switchyard/apis';

/** Options of {@link SharedEncodings}. */
export interface SharedEncodingsOptions {
  /** The encoding kept: a frame (`encodeWatchEventFrame`'s bytes, the default) or the bare message (`encodeWatchEvent`'s). */
  framed?: boolean;
  /** Bytes kept before starting over (default 4 MiB). */
  maxBytes?: number;
}

/** Kinds whose objects the hub hands to several nodes; applied-to groups are cut per node. */
const SHARED_KINDS: ReadonlySet<string> = new Set(['NetworkPolicy', 'AddressGroup', 'AddressGroupPatch', 'EgressGroup', 'EgressGroupPatch']);
const CHUNK_BYTES = 256 * 1024;
/** Encodings at least this long get memory of their own instead of a piece of a chunk. */
const OWN_BUFFER_FROM = 32 * 1024;

/**
 * Encodings of one version of the controlplane state (a resourceVersion), by event object: the
 * hub hands the same policy or address-group object to every node that holds it, so an object
 * sent to many watchers is encoded once (an address group every node holds: once instead of once
 * per node). Bounded: another version, or more than `maxBytes`, drops what is held.
 *
 * Every encoding (shared or not) is written by `WatchEventEncoder` straight into 256 KiB chunks
 * of this cache's own: no allocation per event, and no pinned 8 KiB slab of Node's Buffer pool
 * (the earlier cache held each policy's frame for the policy's life, 60 MB of slabs after 1,000
 * initial syncs, and external memory growth is what starts V8's full collections of the
 * compiler's heap). A chunk is only ever appended to, so a piece handed to a socket stays intact.
 */
export class SharedEncodings {
  private readonly encoder = new WatchEventEncoder();
  private readonly framed: boolean;
  private readonly maxBytes: number;
  private version: string | undefined;
  private readonly held = new Map<object, { type: string; kind: string; bytes: Uint8Array }>();
  private heldBytes = 0;
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;

  constructor(options: SharedEncodingsOptions = {}) {
    this.framed = options.framed ?? true;
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  }

  /** The encoding of `e` at `version`; made on first use at that version. Throws ControlplaneCodecError. */
  of(e: controlplane.WatchEvent, version: string): Uint8Array {
    // Deletions, bookmarks, errors and applied-to groups are made per node: nothing to share.
    const shared = (e.type === 'ADDED' || e.type === 'MODIFIED') && SHARED_KINDS.has(e.kind);
    if (shared) {
      if (version !== this.version) {
        this.clear();
        this.version = version;
      }
      const hit = this.held.get(e.object);
      if (hit && hit.type === e.type && hit.kind === e.kind) return hit.bytes;
    }
    const size = this.encoder.prepare(e, this.framed);
    const bytes = this.place(size);
    this.encoder.writeTo(bytes, 0);
    if (shared) {
      if (this.heldBytes + size > this.maxBytes) this.clear();
      this.heldBytes += size;
      this.held.set(e.object, { type: e.type, kind: e.kind, bytes });
    }
    return bytes;
  }

  /** Encodings and bytes held now (for tests). */
  get size(): { encodings: number; bytes: number } {
    return { encodings: this.held.size, bytes: this.heldBytes };
  }

  /** `size` bytes to write an encoding into: the next piece of the current chunk, or memory of its own. */
  private place(size: number): Uint8Array {
    if (size >= OWN_BUFFER_FROM) return new Uint8Array(size);
    if (this.used + size > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + size);
    this.used += size;
    return out;
  }

  /**
   * Forget every encoding. The chunk being filled is kept (its free tail is used from here on):
   * a fresh chunk per version would be a 256 KiB allocation for every cluster change, and that
   * external memory is what starts full collections (p99 of a label change went from ~10 to
   * 110-150 ms when it did).
   */
  private clear(): void {
    this.held.clear();
    this.heldBytes = 0;
  }
}

const varintLength = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/**
 * Messages (`encodeWatchEvent` output) as one buffer of frames: each message's unsigned LEB128
 * varint length, then the message, the layout of `encodeFrame` of `@switchyard/apis`. Written
 * here rather than concatenating `encodeWatchEventFrame` results because every frame made that way
 * is one more allocation from the Buffer pool: over 1,000 initial states, 23 MB of slabs that
 * count towards the external memory whose growth starts a full collection.
 */
export function delimited(messages: readonly Uint8Array[]): Buffer {
  let total = 0;
  for (const m of messages) total += varintLength(m.length) + m.length;
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const m of messages) {
    let n = m.length;
    while (n >= 0x80) {
      out[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    out[pos++] = n;
    out.set(m, pos);
    pos += m.length;
  }
  return out;
}
