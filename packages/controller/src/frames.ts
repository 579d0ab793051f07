// Watch-event encodings shared by every watcher that receives the same object at one state
// version, and the initial state written as one length-delimited buffer.
import { WatchEventEncoder, type controlplane } from '@switchyard/apis';

/** Options of {@link SharedEncodings}. */
export interface SharedEncodingsOptions {
  /** The encoding kept: a frame (`encodeWatchEventFrame`'s bytes, the default) or the bare message (`encodeWatchEvent`'s). */
  framed?: boolean;
  /** Bytes kept before starting over (default 4 MiB). */
  maxBytes?: number;
  /**
   * Only {@link SharedEncodings.concat} is used (it hands out copies, never views), so what is held
   * lives in one arena of `maxBytes` that is written over when it starts over, instead of fresh
   * 256 KiB chunks. {@link SharedEncodings.of} throws.
   */
  recycle?: boolean;
}

/** Kinds whose objects the hub hands to several nodes; applied-to groups are cut per node. */
const SHARED_KINDS: ReadonlySet<string> = new Set(['NetworkPolicy', 'AddressGroup', 'AddressGroupPatch', 'EgressGroup', 'EgressGroupPatch']);
const CHUNK_BYTES = 256 * 1024;
/** Encodings at least this long get memory of their own instead of a piece of a chunk. */
const OWN_BUFFER_FROM = 32 * 1024;

/** Kind codes of the shared kinds, for a slot's tag. */
const KIND_CODE: Readonly<Record<string, number>> = { NetworkPolicy: 1, AddressGroup: 2, AddressGroupPatch: 3, EgressGroup: 4, EgressGroupPatch: 5 };
/** What an encoding was made for: the event type and kind (an object may go out as ADDED to one node and MODIFIED to another). */
const tagOf = (e: controlplane.WatchEvent): number => (e.type === 'MODIFIED' ? 8 : 0) + (KIND_CODE[e.kind] ?? 0);
/** Deletions, bookmarks, errors and applied-to groups are made per node: nothing to share. */
const isShared = (e: controlplane.WatchEvent): boolean => (e.type === 'ADDED' || e.type === 'MODIFIED') && SHARED_KINDS.has(e.kind);

/**
 * Encodings of one version of the controlplane state (a resourceVersion), by event object: the
 * hub hands the same policy or address-group object to every node that holds it, so an object
 * sent to many watchers is encoded once (an address group every node holds: once instead of once
 * per node). Bounded: another version, or more than `maxBytes`, drops what is held.
 *
 * {@link of} writes every encoding (shared or not) with `WatchEventEncoder` straight into 256 KiB
 * chunks of this cache's own: no allocation per event, and no pinned 8 KiB slab of Node's Buffer
 * pool (the earlier cache held each policy's frame for the policy's life, 60 MB of slabs after
 * 1,000 initial syncs, and external memory growth is what starts V8's full collections of the
 * compiler's heap). A chunk is only ever appended to, so a piece handed to a socket stays intact.
 * {@link concat} (initial states) writes into a scratch buffer reused from call to call and
 * returns one copy; with `recycle`, what it holds is in one arena written over when it starts
 * over, so a run of initial states allocates no memory but the buffers it returns.
 *
 * What is held is numbers, not objects: the object's slot (a small integer) in a WeakMap, and the
 * slot's chunk, offset, length and tag in flat arrays. An earlier version held an entry object and
 * a Uint8Array view per encoding in a Map cleared every 4 MiB; those outlived a scavenge or two,
 * so every 4 MiB of encodings promoted ~3 MB of objects and Map tables that died in the old
 * generation right after (docs/controller.md, "Issue 32, fifth pass").
 */
export class SharedEncodings {
  private readonly encoder = new WatchEventEncoder();
  private readonly framed: boolean;
  private readonly maxBytes: number;
  private readonly recycle: boolean;
  private version: string | undefined;
  /**
   * Object -> slot, valid while `slotObject[slot]` is the object. Weak and never cleared: a Map
   * cleared every 4 MiB was rebuilt each time, and its tables (over 128 KiB, so allocated in the
   * old generation) were old garbage at once.
   */
  private readonly held = new WeakMap<object, number>();
  private readonly slotObject: (object | undefined)[] = [];
  private heldBytes = 0;
  /** Per slot: index in `chunks`, offset, length, tag. */
  private slotChunk = new Int32Array(1024);
  private slotOffset = new Int32Array(1024);
  private slotLength = new Int32Array(1024);
  private slotTag = new Int8Array(1024);
  private slots = 0;
  /** The memory the slots of this version point into. */
  private chunks: Uint8Array[] = [];
  /** The chunk being filled (with `recycle`: the arena). */
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;
  /** Where {@link locate} found or put an encoding. */
  private at: Uint8Array = this.chunk;
  private atOffset = 0;
  private atLength = 0;
  /** What {@link concat} builds an initial state in, reused from call to call. */
  private scratch: Uint8Array = new Uint8Array(0);

  constructor(options: SharedEncodingsOptions = {}) {
    this.framed = options.framed ?? true;
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    this.recycle = options.recycle ?? false;
  }

  /** The encoding of `e` at `version`; made on first use at that version. Throws ControlplaneCodecError. */
  of(e: controlplane.WatchEvent, version: string): Uint8Array {
    if (this.recycle) throw new Error('SharedEncodings.of on a recycling cache: its memory is written over');
    if (!isShared(e)) {
      this.encodeIntoChunk(e);
    } else if (!this.lookup(e, version)) {
      this.encodeIntoChunk(e);
      this.hold(e, this.at, this.atOffset, this.atLength, false);
    }
    return this.at.subarray(this.atOffset, this.atOffset + this.atLength);
  }

  /**
   * The encodings of `events` at `version`, one after the other in one Buffer of their own (with
   * `framed`, the length-delimited stream an initial state is). Objects other calls at the same
   * version also encode are shared as by {@link of}; nothing per event outlives the call.
   */
  concat(events: readonly controlplane.WatchEvent[], version: string): Buffer {
    let pos = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as controlplane.WatchEvent;
      const shared = isShared(e);
      if (shared && this.lookup(e, version)) {
        this.room(pos + this.atLength);
        // A view per copy (short-lived, never promoted): `set` copied 300k frames in half the time of a byte loop.
        this.scratch.set(this.at.subarray(this.atOffset, this.atOffset + this.atLength), pos);
        pos += this.atLength;
        continue;
      }
      const size = this.encoder.prepare(e, this.framed);
      this.room(pos + size);
      this.encoder.writeTo(this.scratch, pos);
      if (shared) this.hold(e, this.scratch, pos, size, true);
      pos += size;
    }
    const out = Buffer.allocUnsafe(pos);
    out.set(this.scratch.subarray(0, pos));
    return out;
  }

  /** Encodings and bytes held now (for tests). */
  get size(): { encodings: number; bytes: number } {
    return { encodings: this.slots, bytes: this.heldBytes };
  }

  /** Whether the encoding of `e` at `version` is held; if so `at`/`atOffset`/`atLength` point at it. */
  private lookup(e: controlplane.WatchEvent, version: string): boolean {
    if (version !== this.version) {
      this.clear();
      this.version = version;
    }
    const slot = this.held.get(e.object);
    if (slot === undefined || slot >= this.slots || this.slotObject[slot] !== e.object || this.slotTag[slot] !== tagOf(e)) return false;
    this.at = this.chunks[this.slotChunk[slot] as number] as Uint8Array;
    this.atOffset = this.slotOffset[slot] as number;
    this.atLength = this.slotLength[slot] as number;
    return true;
  }

  /**
   * Hold the encoding of `e` (`size` bytes of `src` at `offset`); `copy`: the bytes are not in this
   * cache's memory yet (they are in the scratch buffer).
   */
  private hold(e: controlplane.WatchEvent, src: Uint8Array, offset: number, size: number, copy: boolean): void {
    if (this.heldBytes + size > this.maxBytes) this.clear();
    let mem = src;
    let off = offset;
    if (copy) {
      if (size >= OWN_BUFFER_FROM) {
        mem = src.slice(offset, offset + size);
        off = 0;
      } else {
        if (this.recycle) {
          if (this.chunk.length === 0) this.chunk = new Uint8Array(Math.max(this.maxBytes, OWN_BUFFER_FROM));
          // The arena is full only when the held bytes are near the bound: start over in place.
          if (this.used + size > this.chunk.length) this.clear();
        } else if (this.used + size > this.chunk.length) {
          this.chunk = new Uint8Array(CHUNK_BYTES);
          this.used = 0;
        }
        mem = this.chunk;
        off = this.used;
        mem.set(src.subarray(offset, offset + size), off);
        this.used += size;
      }
    }
    this.heldBytes += size;
    let chunkIndex = this.chunks.length - 1;
    if (this.chunks[chunkIndex] !== mem) chunkIndex = this.chunks.push(mem) - 1;
    if (this.slots === this.slotChunk.length) this.grow();
    const s = this.slots++;
    this.slotChunk[s] = chunkIndex;
    this.slotOffset[s] = off;
    this.slotLength[s] = size;
    this.slotTag[s] = tagOf(e);
    this.slotObject[s] = e.object;
    this.held.set(e.object, s);
  }

  /** Encode `e` into the current chunk (or memory of its own when large); sets `at`. */
  private encodeIntoChunk(e: controlplane.WatchEvent): void {
    const size = this.encoder.prepare(e, this.framed);
    if (size >= OWN_BUFFER_FROM) {
      this.at = new Uint8Array(size);
      this.atOffset = 0;
    } else {
      if (this.used + size > this.chunk.length) {
        this.chunk = new Uint8Array(CHUNK_BYTES);
        this.used = 0;
      }
      this.at = this.chunk;
      this.atOffset = this.used;
      this.used += size;
    }
    this.atLength = size;
    this.encoder.writeTo(this.at, this.atOffset);
  }

  /** At least `n` bytes of scratch, keeping what is written. */
  private room(n: number): void {
    if (n <= this.scratch.length) return;
    const next = new Uint8Array(Math.max(n, this.scratch.length * 2, 64 * 1024));
    next.set(this.scratch);
    this.scratch = next;
  }

  private grow(): void {
    const n = this.slotChunk.length * 2;
    const copy = <T extends Int32Array | Int8Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.slotChunk = copy(this.slotChunk, new Int32Array(n));
    this.slotOffset = copy(this.slotOffset, new Int32Array(n));
    this.slotLength = copy(this.slotLength, new Int32Array(n));
    this.slotTag = copy(this.slotTag, new Int8Array(n));
  }

  /**
   * Forget every encoding. The chunk being filled is kept (its free tail is used from here on):
   * a fresh chunk per version would be a 256 KiB allocation for every cluster change, and that
   * external memory is what starts full collections (p99 of a label change went from ~10 to
   * 110-150 ms when it did). With `recycle` the arena is written over from its start.
   */
  private clear(): void {
    this.slotObject.fill(undefined, 0, this.slots);
    this.heldBytes = 0;
    this.slots = 0;
    this.chunks.length = 0;
    this.chunks.push(this.chunk);
    if (this.recycle) this.used = 0;
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
