/**
 * What changed between two root filesystems, as an OCI layer describes it: the entries of `full`
 * that are new or differ from `base` (with every parent directory, so the layer unpacks on its
 * own), and a whiteout for each topmost path of `base` that `full` lacks.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';

export interface TreeChanges {
  /** Relative paths to put in the layer, parents before children: `full`'s new or changed entries and the whiteouts (`<dir>/.wh.<name>`). */
  entries: string[];
  /** Relative paths of `base` that `full` removed (topmost only), one whiteout each. */
  removed: string[];
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const kind = (s: Stats): string => (s.isDirectory() ? 'd' : s.isFile() ? 'f' : s.isSymbolicLink() ? 'l' : s.isCharacterDevice() ? 'c' : s.isBlockDevice() ? 'b' : s.isFIFO() ? 'p' : 's');

/** Whether the entry at `rel` differs between the trees: type, mode, owner, mtime, device number, link target or bytes. */
function differs(baseRoot: string, fullRoot: string, rel: string, a: Stats, b: Stats): boolean {
  if (kind(a) !== kind(b) || a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid) return true;
  if (b.isDirectory()) return a.mtimeMs !== b.mtimeMs;
  if (a.mtimeMs !== b.mtimeMs) return true;
  if (b.isSymbolicLink()) return readlinkSync(join(baseRoot, rel)) !== readlinkSync(join(fullRoot, rel));
  if (b.isCharacterDevice() || b.isBlockDevice()) return a.rdev !== b.rdev;
  if (!b.isFile()) return false;
  // mmdebstrap clamps every newer mtime to SOURCE_DATE_EPOCH, so a file rewritten by a later
  // install (dpkg's status, ld.so.cache) can keep its mtime: the bytes decide.
  return a.size !== b.size || !readFileSync(join(baseRoot, rel)).equals(readFileSync(join(fullRoot, rel)));
}

/** The changes from `baseRoot` to `fullRoot` (two unpacked root filesystems). */
export function treeChanges(baseRoot: string, fullRoot: string): TreeChanges {
  const removed: string[] = [];
  /** The layer's entries under one directory of `full`, in name order, whiteouts last. */
  const walk = (rel: string): string[] => {
    const at = (name: string): string => (rel === '' ? name : `${rel}/${name}`);
    const baseNames = new Set(lstatOrUndefined(join(baseRoot, rel))?.isDirectory() ? readdirSync(join(baseRoot, rel)) : []);
    const out: string[] = [];
    for (const name of readdirSync(join(fullRoot, rel)).sort()) {
      const r = at(name);
      baseNames.delete(name);
      const b = lstatSync(join(fullRoot, r));
      const a = lstatOrUndefined(join(baseRoot, r));
      const changed = !a || differs(baseRoot, fullRoot, r, a, b);
      if (b.isDirectory()) {
        // A directory goes in when it changed or holds something that did, before its entries.
        const inner = a?.isDirectory() ? walk(r) : walkAll(r);
        if (changed || inner.length > 0) out.push(r, ...inner);
      } else if (changed) out.push(r);
    }
    for (const name of [...baseNames].sort()) {
      removed.push(at(name));
      out.push(at(`${WHITEOUT}${name}`));
    }
    return out;
  };
  /** Every entry under a directory `base` does not have as a directory. */
  const walkAll = (rel: string): string[] => readdirSync(join(fullRoot, rel)).sort().flatMap((name) => {
    const r = `${rel}/${name}`;
    return lstatSync(join(fullRoot, r)).isDirectory() ? [r, ...walkAll(r)] : [r];
  });
  return { entries: walk(''), removed };
}

/** The OCI whiteout prefix: `<dir>/.wh.<name>` removes `<dir>/<name>` of the layers below. */
export const WHITEOUT = '.wh.';
