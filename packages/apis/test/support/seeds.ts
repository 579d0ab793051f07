/** Loads the seed manifests extracted under test/fixtures/seeds (one or more YAML documents per file). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const seedDir = join(__dirname, '..', 'fixtures', 'seeds');

export interface SeedDoc {
  file: string;
  index: number;
  /** Parsed document. */
  value: Record<string, unknown>;
}

export function seedDocs(): SeedDoc[] {
  const out: SeedDoc[] = [];
  for (const file of readdirSync(seedDir).filter((f) => f.endsWith('.yaml')).sort()) {
    const docs = parseAllDocuments(readFileSync(join(seedDir, file), 'utf8'));
    docs.forEach((d, index) => {
      if (d.errors.length) throw new Error(`${file}#${index}: ${d.errors.map((e) => e.message).join('; ')}`);
      out.push({ file, index, value: d.toJS() as Record<string, unknown> });
    });
  }
  return out;
}

/**
 * The seed documents print one Antrea-native NetworkPolicy without its apiVersion line; its
 * fields (externalEntitySelector, action) make it crd.antrea.io, and v1beta1 is the version the
 * ExternalNode guide targets.
 */
export function withInferredApiVersion(doc: SeedDoc): Record<string, unknown> {
  if (doc.value['apiVersion'] === undefined && doc.file === 'external-node-04-antrea-networkpolicy.yaml') {
    return { apiVersion: 'crd.antrea.io/v1beta1', ...doc.value };
  }
  return doc.value;
}

/** Manifests are documents with a kind and metadata (config fragments are not). */
export const isManifest = (d: SeedDoc): boolean => typeof d.value['kind'] === 'string' && typeof d.value['metadata'] === 'object';
