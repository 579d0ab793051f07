// What a published tarball must carry beyond code: LICENSE, a repository field that locates the
// package, README links that work on the registry page, and type declarations whose imports are
// declared dependencies. Each check returns a list of problems (empty: fine).
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { packageOf } from './blocks.mjs';

/** LICENSE is in the tarball and is the repository's LICENSE text. */
export function checkLicense({ files, unpackedDir, rootLicense }) {
  if (!files.includes('LICENSE')) return ['tarball has no LICENSE file'];
  const text = readFileSync(join(unpackedDir, 'LICENSE'), 'utf8');
  return text === rootLicense ? [] : ['LICENSE differs from the repository LICENSE'];
}

/** `repository` names the git URL and this package's directory; `license` is set. */
export function checkRepository({ pkg, dir, repoUrl }) {
  const problems = [];
  const r = pkg.repository;
  if (!r || typeof r !== 'object') return ['package.json has no repository object ({ type, url, directory })'];
  if (r.url !== `git+${repoUrl}.git`) problems.push(`repository.url is ${JSON.stringify(r.url)}, expected "git+${repoUrl}.git"`);
  if (r.directory !== dir) problems.push(`repository.directory is ${JSON.stringify(r.directory)}, expected "${dir}"`);
  if (!pkg.license) problems.push('package.json has no license');
  return problems;
}

/**
 * Every Markdown link of the README works on the registry page: absolute URLs, anchors, or a
 * relative path to a file inside the package that the tarball contains.
 */
export function checkReadmeLinks({ readme, files }) {
  const problems = [];
  const links = [...readme.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  for (const href of links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue;
    const path = posix.normalize(href.split('#')[0]);
    if (path.startsWith('../') || path.startsWith('/')) {
      problems.push(`README link ${href} points outside the package (broken on the registry page; use the repository URL)`);
    } else if (!files.includes(path)) {
      problems.push(`README link ${href} names a file the tarball does not contain`);
    }
  }
  return problems;
}

const builtins = new Set(builtinModules);

/** Bare module specifiers imported or referenced by a declaration file. */
function declarationImports(text) {
  const specs = new Set();
  for (const m of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/g)) specs.add(m[1]);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.add(m[1]);
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) specs.add(m[1]);
  for (const m of text.matchAll(/\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/g)) specs.add(m[1]);
  return [...specs];
}

/**
 * Each package a published .d.ts/.d.cts imports is one the package declares (dependencies or
 * peerDependencies), itself, or a Node built-in (typed by the consumer's @types/node): otherwise
 * a consumer's type check depends on what happens to be hoisted next to it.
 */
export function checkDeclarationDeps({ pkg, unpackedDir }) {
  const declared = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const problems = [];
  for (const file of listFiles(unpackedDir).filter((f) => /\.d\.c?ts$/.test(f))) {
    for (const spec of declarationImports(readFileSync(join(unpackedDir, file), 'utf8'))) {
      const name = packageOf(spec);
      if (name === undefined || builtins.has(name) || name === 'node') continue;
      if (!declared.has(name)) problems.push(`${file} imports ${spec}, but ${name} is not in dependencies or peerDependencies`);
    }
  }
  return problems;
}

function listFiles(dir, prefix = '') {
  const out = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}
