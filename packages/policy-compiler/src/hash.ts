// Deterministic short names for shared groups (FNV-1a 64-bit of the normalized selector text).
const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** 16 hex digits of FNV-1a 64 over the UTF-16 code units of `text`. */
export function fnv64(text: string): string {
  // Two 32-bit halves keep this fast (bigint per char would dominate compile time).
  let h1 = 0x84222325 | 0;
  let h2 = 0xcbf29ce4 | 0;
  for (let i = 0; i < text.length; i++) {
    h1 ^= text.charCodeAt(i);
    // multiply (h2:h1) by 0x100000001b3 = 2^40 + 0x1b3
    const lo = Math.imul(h1, 0x1b3);
    const carry = Math.floor(((h1 >>> 0) * 0x1b3) / 0x100000000);
    const hi = (Math.imul(h2, 0x1b3) + carry + (h1 << 8)) | 0;
    h1 = lo | 0;
    h2 = hi;
  }
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** Reference implementation with bigint, used by tests to check {@link fnv64}. */
export function fnv64Reference(text: string): string {
  let h = OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}
