// The seed fixtures (the objects of the seed guide's manifests) and a field-by-field comparison.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

/** Every API object in the seed fixtures, with the file it came from. */
export function seedDocs(): { file: string; text: string; docs: Record<string, unknown>[] }[] {
  const dir = join(__dirname, '..', 'fixtures', 'seeds');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const docs = YAML.parseAllDocuments(text)
        .map((d) => d.toJSON() as Record<string, unknown> | null)
        .filter((d): d is Record<string, unknown> => d !== null);
      return { file, text, docs };
    });
}

/** Every field of `want` is present with the same value in `got` (extra fields allowed). */
export function missingFields(want: unknown, got: unknown, path = ''): string[] {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return [path || '.'];
    return Object.entries(want).flatMap(([k, v]) => missingFields(v, (got as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return [path];
    return want.flatMap((v, i) => missingFields(v, got[i], `${path}[${i}]`));
  }
  // YAML numbers like 9000.0 read back as 9000: compare as JSON values.
  return JSON.stringify(want) === JSON.stringify(got) ? [] : [`${path}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`];
}
