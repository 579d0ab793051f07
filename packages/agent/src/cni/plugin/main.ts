/**
 * `switchyard-cni`: the CNI plugin binary. Exec'd by the container runtime once per operation, it
 * reads the CNI environment and stdin, answers VERSION itself and forwards ADD/DEL/CHECK to the
 * agent's gRPC server on a unix socket, then prints the result or a spec error JSON.
 * Bundled into one file with node: builtins only, so it starts as fast as node does.
 */
import { readFileSync } from 'node:fs';
import { runPlugin } from './run';

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return ''; // no stdin (e.g. a closed descriptor): treated as an empty configuration
  }
}

void runPlugin(process.env, readStdin(), (s) => process.stdout.write(`${s}\n`)).then((code) => {
  process.exitCode = code;
});
