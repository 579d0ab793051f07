/**
 * A pod spec of the install manifest (switchyard.yml's Deployment and DaemonSet) mapped onto
 * `podman run` arguments, as a kubelet turns a PodSpec into containers: command and args, env
 * (values, the downward API's fieldRefs, the Service variables a kubelet adds), the volumes'
 * host paths bound at the mount paths (subPath, readOnly, mountPropagation), the security
 * context, the service-account mount and the network (the node's netns for hostNetwork). Pure:
 * the caller says where each volume lives on this machine.
 */
import { LabError } from './plan';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}
export interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  volumeMounts?: VolumeMount[];
  securityContext?: SecurityContext;
}
export interface Volume {
  name: string;
  hostPath?: { path: string; type?: string };
  configMap?: { name: string; items?: { key: string; path: string }[] };
  secret?: { secretName: string };
  emptyDir?: Record<string, unknown>;
}
export interface PodSpec {
  hostNetwork?: boolean;
  automountServiceAccountToken?: boolean;
  securityContext?: Pick<SecurityContext, 'runAsUser' | 'runAsGroup' | 'runAsNonRoot'>;
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
}

/** Where the in-cluster ServiceAccount token, CA and namespace are mounted (what client libraries read). */
export const SERVICE_ACCOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The flags every container needs on these machines (docs/install.md, the notes on containers). */
export const PODMAN_HOST_FLAGS: readonly string[] = ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** What the mapping needs from the caller: what a kubelet knows about the pod and the node. */
export interface PodContext {
  /** The podman container name (a label for people; the lab handles containers by the ID podman returns). */
  name: string;
  /** The host path backing each volume of the pod spec, by volume name (a directory; a file for a FileOrCreate hostPath). */
  volumes: Readonly<Record<string, string>>;
  /** Values of the downward API's fieldRefs the pod's env uses, e.g. `spec.nodeName`. */
  fieldRefs: Readonly<Record<string, string>>;
  /** Environment a kubelet adds to every container: the Services' `<NAME>_SERVICE_HOST/PORT`. */
  serviceEnv?: Readonly<Record<string, string>>;
  /** Host directory mounted read-only at {@link SERVICE_ACCOUNT_PATH} (token, ca.crt, namespace), unless the pod opts out. */
  serviceAccountDir?: string;
  /** `podman run --network` for a hostNetwork pod (the node's netns: `ns:/run/netns/<node>`). */
  hostNetwork: string;
  /** `--network` for a pod with a network of its own (the lab has no pod network for these: default `host`). */
  podNetwork?: string;
  /** Labels on the container. */
  labels?: Readonly<Record<string, string>>;
  /** The container's log file (CRI format, as a kubelet's under /var/log/pods); absent: podman's default. */
  logPath?: string;
  /** Init containers run attached and are removed when done (`--rm`); the others detached. */
  init?: boolean;
}

const where = (c: Container, what: string): string => `container ${c.name}: ${what}`;

function envValue(c: Container, e: EnvVar, ctx: PodContext): string {
  if (e.value !== undefined) return e.value;
  const ref = e.valueFrom?.fieldRef?.fieldPath;
  if (ref !== undefined) {
    const v = ctx.fieldRefs[ref];
    if (v === undefined) throw new LabError('INVALID_ARGUMENT', `${where(c, `env ${e.name}`)}: fieldRef ${ref} has no value here (known: ${Object.keys(ctx.fieldRefs).join(', ')})`, ref, `env[${e.name}].valueFrom.fieldRef.fieldPath`);
    return v;
  }
  if (e.valueFrom?.secretKeyRef) throw new LabError('INVALID_ARGUMENT', `${where(c, `env ${e.name}`)}: secretKeyRef ${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key} is not supported by the lab's podman runtime`, e.valueFrom.secretKeyRef, `env[${e.name}].valueFrom.secretKeyRef`);
  if (e.valueFrom) throw new LabError('INVALID_ARGUMENT', `${where(c, `env ${e.name}`)}: valueFrom ${Object.keys(e.valueFrom).join(', ')} is not supported by the lab's podman runtime`, e.valueFrom, `env[${e.name}].valueFrom`);
  return '';
}

function mountFlag(pod: PodSpec, c: Container, m: VolumeMount, ctx: PodContext): string {
  if (!(pod.volumes ?? []).some((v) => v.name === m.name)) throw new LabError('INVALID_ARGUMENT', `${where(c, `volumeMount ${m.mountPath}`)} names volume ${JSON.stringify(m.name)}, which the pod spec does not have`, m.name, 'volumeMounts[].name');
  const host = ctx.volumes[m.name];
  if (host === undefined) throw new LabError('INVALID_ARGUMENT', `${where(c, `volumeMount ${m.mountPath}`)}: volume ${JSON.stringify(m.name)} has no host path in this lab`, m.name, 'volumes[].name');
  const source = m.subPath ? `${host.replace(/\/+$/, '')}/${m.subPath}` : host;
  const opts = [m.readOnly ? 'ro' : 'rw'];
  if (m.mountPropagation === 'HostToContainer') opts.push('rslave');
  else if (m.mountPropagation === 'Bidirectional') opts.push('rshared');
  return `${source}:${m.mountPath}:${opts.join(',')}`;
}

/**
 * `podman run` arguments (after `podman`) for one container of a pod spec: the host flags of
 * {@link PODMAN_HOST_FLAGS}, `--pull never` (the images are loaded, never pulled), then the spec.
 * Kubernetes' `command` replaces the image's entrypoint and `args` its command; unset, the
 * image's own are used. Throws a LabError naming the field for what a kubelet would refuse or the
 * lab cannot give (a mount of a volume the pod lacks, a secret in env).
 */
export function podmanRunArgs(pod: PodSpec, c: Container, ctx: PodContext): string[] {
  const out = ['run', ctx.init ? '--rm' : '--detach', '--name', ctx.name, '--pull', 'never', ...PODMAN_HOST_FLAGS];
  out.push('--network', pod.hostNetwork ? ctx.hostNetwork : (ctx.podNetwork ?? 'host'));
  const sc: SecurityContext = { ...pod.securityContext, ...c.securityContext };
  if (sc.privileged) out.push('--privileged');
  if (sc.runAsUser !== undefined) out.push('--user', sc.runAsGroup !== undefined ? `${sc.runAsUser}:${sc.runAsGroup}` : String(sc.runAsUser));
  else if (sc.runAsNonRoot) throw new LabError('INVALID_ARGUMENT', `${where(c, 'securityContext')}: runAsNonRoot without runAsUser (the lab does not read the image's user to check it)`, sc, 'securityContext.runAsUser');
  if (sc.readOnlyRootFilesystem) out.push('--read-only');
  for (const cap of sc.capabilities?.drop ?? []) out.push('--cap-drop', cap);
  for (const cap of sc.capabilities?.add ?? []) out.push('--cap-add', cap);
  if (sc.allowPrivilegeEscalation === false) out.push('--security-opt', 'no-new-privileges');
  const env = new Map<string, string>(Object.entries(ctx.serviceEnv ?? {}));
  for (const e of c.env ?? []) env.set(e.name, envValue(c, e, ctx));
  for (const [k, v] of env) out.push('--env', `${k}=${v}`);
  for (const m of c.volumeMounts ?? []) out.push('--volume', mountFlag(pod, c, m, ctx));
  if (ctx.serviceAccountDir !== undefined && pod.automountServiceAccountToken !== false && !(c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_PATH)) out.push('--volume', `${ctx.serviceAccountDir}:${SERVICE_ACCOUNT_PATH}:ro`);
  for (const [k, v] of Object.entries(ctx.labels ?? {})) out.push('--label', `${k}=${v}`);
  if (ctx.logPath !== undefined) out.push('--log-driver', 'k8s-file', '--log-opt', `path=${ctx.logPath}`);
  if (c.command?.length) out.push('--entrypoint', JSON.stringify(c.command));
  out.push(c.image, ...(c.args ?? []));
  return out;
}

/** A hostPath volume's type asks for a file (FileOrCreate, File); otherwise it is a directory. */
export const isFileVolume = (v: Volume): boolean => v.hostPath?.type === 'FileOrCreate' || v.hostPath?.type === 'File';

/** The pod template's spec of a Deployment or DaemonSet object of the manifest, by kind and name. */
export function podSpecOf(objects: readonly Record<string, unknown>[], kind: 'Deployment' | 'DaemonSet', name: string): PodSpec {
  const obj = objects.find((o) => o['kind'] === kind && (o['metadata'] as { name?: string } | undefined)?.name === name);
  const spec = (obj?.['spec'] as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
  if (!spec) throw new LabError('INVALID_ARGUMENT', `the manifest has no ${kind} ${name} with a pod template`, name, `${kind}.metadata.name`);
  return spec;
}

/** One container of a pod spec by name (init containers included). */
export function containerOf(pod: PodSpec, name: string): Container {
  const c = [...(pod.initContainers ?? []), ...pod.containers].find((x) => x.name === name);
  if (!c) throw new LabError('INVALID_ARGUMENT', `the pod spec has no container ${name} (it has ${[...(pod.initContainers ?? []), ...pod.containers].map((x) => x.name).join(', ')})`, name, 'containers[].name');
  return c;
}
