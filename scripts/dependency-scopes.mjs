// Which declared dependencies a file of a workspace package may import, by where the file sits.
// One definition for the lint rule (eslint.config.mjs) and the unused-dependency check
// (scripts/check-dependencies.mjs).

/** Folders holding workspace packages, one package per subfolder. */
export const workspaceFolders = ['packages', 'tools'];

/** Top-level folders of a package whose code is never shipped: may also use `devDependencies`. */
export const devFolders = ['test', 'test-integration', 'test-utils', 'bench', 'conformance'];

/** Top-level folders of a package with build/test tooling: may also use the root's devDependencies. */
export const toolingFolders = ['scripts', 'jest'];

/** Top-level files of a package that configure its build and tests (tooling too). */
export const toolingFileGlobs = ['*.config.{ts,mts,cts,js,mjs,cjs}', 'jest.*.cjs'];
const toolingFile = /^(?:[^/]+\.config\.[cm]?[jt]s|jest\.[^/]+\.cjs)$/;

/**
 * The scope of a file, from its path relative to its package: `shipped` (src/, bin/, anything not
 * named here: `dependencies` and `peerDependencies` only), `dev` or `tooling`.
 * @param {string} rel path relative to the package directory, `/`-separated
 * @returns {'shipped' | 'dev' | 'tooling'}
 */
export function scopeOf(rel) {
  const top = rel.split('/')[0];
  if (devFolders.includes(top)) return 'dev';
  if (toolingFolders.includes(top) || toolingFile.test(rel)) return 'tooling';
  return 'shipped';
}
