// Jest reporter: when SWITCHYARD_TEST_TIMES names a file, appends one line per test file run,
// `<seconds>\t<project>\t<file relative to the repo>\t<passed>\t<failed>`, so `npm test` can list
// the slowest files of the whole run (scripts/test.sh). Does nothing without the variable.
const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

const root = __dirname.replace(/\/scripts$/, '');

class FileTimesReporter {
  onTestResult(test, result) {
    const out = process.env.SWITCHYARD_TEST_TIMES;
    if (!out) return;
    const secs = ((result.perfStats.end - result.perfStats.start) / 1000).toFixed(1);
    const project = test.context?.config?.displayName?.name ?? test.context?.config?.displayName ?? '';
    appendFileSync(out, `${secs}\t${project}\t${relative(root, result.testFilePath)}\t${result.numPassingTests}\t${result.numFailingTests}\n`);
  }
}
module.exports = FileTimesReporter;
