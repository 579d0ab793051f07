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
};
