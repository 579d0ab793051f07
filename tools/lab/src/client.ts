/** Reading a running lab's state and talking to its API server. */
import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/controller';
import { stateFile, type LabState } from './lab';
import { LabError } from './plan';

/**
 * The state of the lab in `labDir`, or undefined when none was brought up. A state.json that is not
 * a whole state (cut short by a disk fault; the lab writes it atomically) is a LabError
 * CORRUPT_STATE naming the file, not a JSON syntax error.
 */
export function readState(labDir: string): LabState | undefined {
  const f = stateFile(labDir);
  if (!existsSync(f)) return undefined;
  let state: unknown;
  try {
    state = JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    state = e;
  }
  const nodes = (state as { nodes?: unknown } | null)?.nodes;
  if (state instanceof Error || typeof state !== 'object' || state === null || !Array.isArray(nodes)) {
    const why = state instanceof Error ? state.message : 'no nodes';
    throw new LabError('CORRUPT_STATE', `${f} is not a whole lab state (${why}); switchyard-lab down removes the lab without it`, f, 'state.json');
  }
  return state as LabState;
}

/** A Kubernetes client on the lab's admin kubeconfig. */
export function labClient(st: LabState): KubeConfigClient {
  const kc = new KubeConfig();
  kc.loadFromFile(st.kubeconfig);
  return new KubeConfigClient(kc);
}
