/** Runs short child processes (ip, nsenter, ethtool, arping) with stdin and a timeout. */
import { spawn } from 'node:child_process';
import { AgentError } from './errors';

export interface ExecResult {
  stdout: string;
  stderr: string;
}

/** Runs `argv`; rejects with AgentError EXEC_FAILED on a non-zero exit, a signal or the timeout. */
export function execFile(argv: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (!cmd) return reject(new AgentError('EXEC_FAILED', 'empty command', argv));
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new AgentError('EXEC_FAILED', `${cmd}: ${e.message}`, argv, cmd, { cause: e }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new AgentError('EXEC_FAILED', `${argv.join(' ')} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`, argv, cmd));
    });
    child.stdin.on('error', () => undefined); // the child may exit before reading everything
    child.stdin.end(opts.input ?? '');
  });
}
