/** Assembles layer tars into an OCI image with umoci and packs the layout as one OCI archive. */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalisedTar, run, type Layer, type Run } from './layers';

export interface ImageLabels {
  version: string;
  revision: string;
  source: string;
  title: string;
  description: string;
  created: string;
}

export interface AssembleOptions {
  layout: string;
  /** The ref name inside the layout and archive (`repository/name:tag`). */
  reference: string;
  layers: readonly Layer[];
  labels: ImageLabels;
  user: string;
  env: readonly string[];
  cmd: readonly string[];
  runner?: Run;
}

export interface LayerReport {
  description: string;
  /** The uncompressed tar it was made from (kept under the build's work directory). */
  tar: string;
  digest: string;
  compressedBytes: number;
  uncompressedBytes: number;
}

export interface ImageReport {
  reference: string;
  archive: string;
  manifestDigest: string;
  configDigest: string;
  layers: LayerReport[];
  compressedBytes: number;
  uncompressedBytes: number;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** The label set of every image (org.opencontainers.image.*). */
export function ociLabels(l: ImageLabels): Record<string, string> {
  return {
    'org.opencontainers.image.created': l.created,
    'org.opencontainers.image.description': l.description,
    'org.opencontainers.image.licenses': 'Apache-2.0',
    'org.opencontainers.image.revision': l.revision,
    'org.opencontainers.image.source': l.source,
    'org.opencontainers.image.title': l.title,
    'org.opencontainers.image.version': l.version,
  };
}

function blob(layout: string, digest: string): Buffer {
  return readFileSync(join(layout, 'blobs', ...digest.split(':')));
}

/**
 * Builds the image in an OCI layout: `umoci raw add-layer` per tar (it gzips deterministically),
 * then one `umoci config` carrying the labels, user, env and command with `created` pinned to
 * SOURCE_DATE_EPOCH (umoci would otherwise stamp the build time into the config and history),
 * then `umoci gc` to drop the intermediate manifests.
 */
export function assemble(o: AssembleOptions): ImageReport & { layout: string } {
  const runner = o.runner ?? run;
  const tag = 'image';
  const image = `${o.layout}:${tag}`;
  rmSync(o.layout, { recursive: true, force: true });
  runner('umoci', ['init', '--layout', o.layout]);
  runner('umoci', ['new', '--image', image]);
  for (const l of o.layers) {
    runner('umoci', ['raw', 'add-layer', '--image', image, `--history.created=${o.labels.created}`, `--history.created_by=${l.description}`, l.file]);
  }
  const config = ['config', '--image', image, '--no-history', `--created=${o.labels.created}`, '--os=linux', '--architecture=amd64', `--config.user=${o.user}`, '--config.workingdir=/'];
  for (const e of o.env) config.push(`--config.env=${e}`);
  for (const c of o.cmd) config.push(`--config.cmd=${c}`);
  for (const [k, v] of Object.entries(ociLabels(o.labels))) config.push(`--config.label=${k}=${v}`);
  // The ref name podman/skopeo give the loaded image.
  config.push(`--tag=${o.reference.slice(o.reference.lastIndexOf(':') + 1)}`);
  runner('umoci', config);
  runner('umoci', ['rm', '--image', image]);
  runner('umoci', ['gc', '--layout', o.layout]);
  return { ...describe(o.layout, o.reference, o.layers), layout: o.layout };
}

/** Reads back the manifest of the single image in a layout, with per-layer sizes. */
export function describe(layout: string, reference: string, layers: readonly Layer[]): ImageReport {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  if (index.manifests.length !== 1) throw new Error(`${layout}: expected one manifest in index.json, found ${index.manifests.length}`);
  const m = index.manifests[0]!;
  const manifest = JSON.parse(blob(layout, m.digest).toString('utf8')) as { config: Descriptor; layers: Descriptor[] };
  const config = JSON.parse(blob(layout, manifest.config.digest).toString('utf8')) as { rootfs: { diff_ids: string[] } };
  const report: LayerReport[] = manifest.layers.map((d, i) => {
    const tar = layers[i];
    if (!tar) throw new Error(`${layout}: layer ${i} has no source tar`);
    const uncompressed = readFileSync(tar.file);
    const diffId = `sha256:${createHash('sha256').update(uncompressed).digest('hex')}`;
    if (config.rootfs.diff_ids[i] !== diffId) throw new Error(`${layout}: layer ${i} diff_id ${config.rootfs.diff_ids[i]} is not the tar's ${diffId}`);
    return { description: tar.description, tar: tar.file, digest: d.digest, compressedBytes: d.size, uncompressedBytes: uncompressed.length };
  });
  return {
    reference,
    archive: '',
    manifestDigest: m.digest,
    configDigest: manifest.config.digest,
    layers: report,
    compressedBytes: report.reduce((s, l) => s + l.compressedBytes, 0),
    uncompressedBytes: report.reduce((s, l) => s + l.uncompressedBytes, 0),
  };
}

/**
 * Packs a layout as an OCI archive (the `oci-archive:` transport of podman and skopeo), with
 * the index's ref name set to the full reference so `podman load` tags it as the manifest names it.
 */
export function archive(o: { layout: string; reference: string; out: string; sourceDateEpoch: number; runner?: Run }): void {
  const runner = o.runner ?? run;
  const indexPath = join(o.layout, 'index.json');
  const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { manifests: Descriptor[] };
  for (const m of index.manifests) m.annotations = { ...m.annotations, 'org.opencontainers.image.ref.name': o.reference };
  writeFileSync(indexPath, JSON.stringify(index));
  normalisedTar({ dir: o.layout, out: o.out, sourceDateEpoch: o.sourceDateEpoch, runner });
}
