// Every project's unit tests in one jest run (npm test's "unit tests" stage): the projects' own
// jest.config.cjs, each with its directory as rootDir, under one set of reporters and one worker
// pool. One start instead of one per project, and the longest file no longer holds up the rest of
// its project.
const { existsSync, readdirSync } = require('node:fs');
const path = require('node:path');

const projects = ['packages', 'tools'].flatMap((w) =>
  readdirSync(path.join(__dirname, w))
    .map((d) => path.join(__dirname, w, d))
    .filter((dir) => existsSync(path.join(dir, 'jest.config.cjs')))
    .map((dir) => {
      // Reporters are a whole-run setting: they come from here.
      const { reporters: _reporters, ...config } = require(path.join(dir, 'jest.config.cjs'));
      return { ...config, rootDir: dir };
    }),
);

/** @type {import('jest').Config} */
module.exports = {
  projects,
  reporters: require('./jest.preset.cjs').reporters,
  // Jest reads testTimeout from the whole run's configuration only: a project's own (kube-api 30 s,
  // workspace-checks 60 s, for tests that start servers or processes) is ignored under `projects`,
  // and those tests then had 5 s, which a loaded machine exceeds (CI-V, load 7-11: 4 failures). The
  // longest a project asks for applies to every project here.
  testTimeout: Math.max(5000, ...projects.map((p) => p.testTimeout ?? 0)),
};
