/** Reading a running lab's state and talking to its API server. */
import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/controller';
import { stateFile, type LabState } from './lab';

/** The state of the lab in `labDir`, or undefined when none was brought up. */
export function readState(labDir: string): LabState | undefined {
  const f = stateFile(labDir);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as LabState) : undefined;
}

/** A Kubernetes client on the lab's admin kubeconfig. */
export function labClient(st: LabState): KubeConfigClient {
  const kc = new KubeConfig();
  kc.loadFromFile(st.kubeconfig);
  return new KubeConfigClient(kc);
}
