/** The size table of `npm run images` and the comparison of two builds of one commit. */
import type { BuildResult } from './build';
import type { ImageReport } from './oci';

const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);

/** One row per layer and a total per image: compressed (gzip, as pushed) and uncompressed (as unpacked) sizes in MiB. */
export function sizeTable(images: readonly ImageReport[]): string {
  const rows: string[][] = [['image', 'layer', 'compressed MiB', 'uncompressed MiB', 'digest']];
  for (const img of images) {
    img.layers.forEach((l, i) => rows.push([i === 0 ? img.reference : '', l.description, mib(l.compressedBytes), mib(l.uncompressedBytes), l.digest.slice(0, 19)]));
    rows.push(['', 'total', mib(img.compressedBytes), mib(img.uncompressedBytes), img.manifestDigest.slice(0, 19)]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string => `| ${r.map((cell, c) => (c === 2 || c === 3 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w, c) => (c === 2 || c === 3 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

export interface Difference {
  image: string;
  what: string;
  /** For a layer: its two tars, so the entries can be compared (`layerEntryDifferences`). */
  tars?: [string, string];
}

/** The `tar -tv` lines (mode, owner, size, mtime, name) present in one listing and not the other, `-`/`+` prefixed, at most `limit`. */
export function listingDifferences(a: readonly string[], b: readonly string[], limit = 20): string[] {
  const inB = new Set(b);
  const inA = new Set(a);
  return [...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`), ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`)].slice(0, limit);
}

/** Where two builds of the same commit differ: manifest, config, and which layers. Empty when every manifest digest matches. */
export function compareBuilds(a: BuildResult, b: BuildResult): Difference[] {
  const out: Difference[] = [];
  for (const x of a.images) {
    const y = b.images.find((i) => i.reference === x.reference);
    if (!y) {
      out.push({ image: x.reference, what: 'missing from the second build' });
      continue;
    }
    if (x.manifestDigest === y.manifestDigest) continue;
    if (x.configDigest !== y.configDigest) out.push({ image: x.reference, what: `config ${x.configDigest} vs ${y.configDigest}` });
    x.layers.forEach((l, i) => {
      const m = y.layers[i];
      if (!m || m.digest !== l.digest) out.push({ image: x.reference, what: `layer ${i + 1} (${l.description}): ${l.digest} vs ${m?.digest ?? 'none'}`, ...(m ? { tars: [l.tar, m.tar] as [string, string] } : {}) });
    });
  }
  return out;
}
