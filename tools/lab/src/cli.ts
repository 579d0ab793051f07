/** `switchyard-lab`: up / down / status of a multi-node Switchyard cluster on this machine. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { reapStale, waitFor } from '@switchyard/testbed';
import { DEFAULT_LAB_DIR, LabError, planNodes } from './plan';
import { REPO_ROOT, stateFile, type LabState } from './lab';
import { labClient, readState } from './client';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function up(labDir: string, nodes: number): Promise<void> {
  planNodes(nodes, () => ''); // refuses a bad --nodes before anything starts
  const prev = readState(labDir);
  if (prev && alive(prev.pid)) throw new LabError('ALREADY_RUNNING', `a lab is already running (pid ${prev.pid}); run switchyard-lab down first`, prev.pid);
  await reapStale();
  rmSync(join(labDir, 'failed'), { force: true });
  rmSync(stateFile(labDir), { force: true });
  mkdirSync(labDir, { recursive: true });
  const log = openSync(join(labDir, 'supervisor.log'), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'tools/lab/src/supervisor.ts'), labDir, String(nodes)], {
    detached: true,
    stdio: ['ignore', log, log],
    cwd: join(REPO_ROOT, 'tools/lab'),
    env: { ...process.env, TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tools/lab/tsconfig.json') },
  });
  child.unref();
  const started = Date.now();
  await waitFor('the lab', () => existsSync(stateFile(labDir)) || existsSync(join(labDir, 'failed')) || child.exitCode !== null, { timeoutMs: 300_000, intervalMs: 200 });
  if (!existsSync(stateFile(labDir))) {
    const why = existsSync(join(labDir, 'failed')) ? readFileSync(join(labDir, 'failed'), 'utf8').trim() : `supervisor exited (see ${join(labDir, 'supervisor.log')})`;
    throw new LabError('START_FAILED', why);
  }
  const st = readState(labDir)!;
  process.stdout.write(
    `switchyard-lab: ${st.nodes.length} nodes up in ${((Date.now() - started) / 1000).toFixed(1)} s (supervisor pid ${st.pid})\n` +
      `  kubeconfig: ${st.kubeconfig}\n  API server: ${st.apiUrl}\n` +
      st.nodes.map((n) => `  ${n.name}: podCIDR ${n.podCIDR}, node IP ${n.nodeIP}, netns ${n.netns}, agent API ${n.apiSocket}\n`).join('') +
      `  try: kubectl --kubeconfig ${st.kubeconfig} get nodes\n`,
  );
}

async function down(labDir: string): Promise<void> {
  const st = readState(labDir);
  if (st && alive(st.pid)) {
    process.kill(st.pid, 'SIGTERM');
    await waitFor('the supervisor to exit', () => !alive(st.pid), { timeoutMs: 60_000, intervalMs: 200 }).catch(() => process.kill(st.pid, 'SIGKILL'));
  }
  // Whatever a crashed supervisor left: its testbed record names it all.
  await reapStale();
  rmSync(labDir, { recursive: true, force: true });
  process.stdout.write('switchyard-lab: down\n');
}

async function status(labDir: string): Promise<void> {
  const st = readState(labDir);
  if (!st || !alive(st.pid)) throw new LabError('NOT_RUNNING', 'no lab is running');
  const kube = labClient(st);
  const pods = await kube.request<{ items: { metadata: { namespace: string; name: string }; spec?: { nodeName?: string }; status?: { podIP?: string; phase?: string } }[] }>('GET', '/api/v1/pods');
  process.stdout.write(`supervisor pid ${st.pid}, kubeconfig ${st.kubeconfig}\nNODE\tPOD CIDR\tNODE IP\n`);
  for (const n of st.nodes) process.stdout.write(`${n.name}\t${n.podCIDR}\t${n.nodeIP}\n`);
  process.stdout.write('\nNAMESPACE/POD\tNODE\tIP\tPHASE\n');
  for (const p of pods.items) process.stdout.write(`${p.metadata.namespace}/${p.metadata.name}\t${p.spec?.nodeName ?? '-'}\t${p.status?.podIP ?? '-'}\t${p.status?.phase ?? 'Pending'}\n`);
}

const program = new Command('switchyard-lab').description('a multi-node Switchyard cluster on one machine').option('--lab-dir <dir>', 'state directory', DEFAULT_LAB_DIR);
const dir = (): string => program.opts<{ labDir: string }>().labDir;
program.command('up').option('--nodes <n>', 'number of nodes', '2').action((o: { nodes: string }) => up(dir(), Number(o.nodes)));
program.command('down').action(() => down(dir()));
program.command('status').action(() => status(dir()));
program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`switchyard-lab: ${(e as Error).message}\n`);
  process.exit(1);
});

export type { LabState };
