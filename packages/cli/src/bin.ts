// The yardctl executable (also installed as kubectl-yardctl, so `kubectl yardctl ...` works).
import { runYardctl } from './program';

const code = await runYardctl(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, isTTY: process.stdout.isTTY === true, env: process.env });
process.exitCode = code;
