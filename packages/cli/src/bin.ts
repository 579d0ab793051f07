// The yardctl executable (also installed as kubectl-yardctl, so `kubectl yardctl ...` works).
import { runYardctl } from './program';

// `yardctl ... | head`: the reader went away; stop quietly, as kubectl does, instead of an EPIPE trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const code = await runYardctl(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, isTTY: process.stdout.isTTY === true, env: process.env });
process.exitCode = code;
