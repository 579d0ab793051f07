import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { containerOf, podmanRunArgs, podSpecOf, SERVICE_ACCOUNT_PATH, type PodContext, type PodSpec } from '../src/pod-spec';
import type { LabError } from '../src/plan';
import { parseRuntime } from '../src/podman';

/** The committed default switchyard.yml (a unit test of tools/images keeps it equal to the generator's output). */
const manifest = YAML.parseAllDocuments(readFileSync(join(__dirname, '../../../build/yamls/switchyard.yml'), 'utf8')).map((d) => d.toJSON() as Record<string, unknown>);
const agentPod = podSpecOf(manifest, 'DaemonSet', 'switchyard-agent');
const controllerPod = podSpecOf(manifest, 'Deployment', 'switchyard-controller');

const agentVolumes = Object.fromEntries((agentPod.volumes ?? []).map((v) => [v.name, `/lab/node1/host${v.hostPath?.path ?? `/${v.name}`}`]));
const ctx: PodContext = {
  name: 'switchyard-agent-node1',
  volumes: agentVolumes,
  fieldRefs: { 'spec.nodeName': 'node1', 'metadata.name': 'switchyard-agent-node1', 'metadata.namespace': 'kube-system' },
  serviceEnv: { KUBERNETES_SERVICE_HOST: '192.168.77.254', KUBERNETES_SERVICE_PORT: '6443' },
  serviceAccountDir: '/lab/node1/serviceaccount',
  hostNetwork: 'ns:/run/netns/n1',
  logPath: '/lab/node1/agent.log',
};

/** The values of every occurrence of a flag. */
const values = (args: string[], flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

describe('podmanRunArgs: a pod spec of switchyard.yml as podman run arguments', () => {
  it("the agent container: the DaemonSet's command and args, the node's netns, privileged, the host flags of these machines, no pull", () => {
    const args = podmanRunArgs(agentPod, containerOf(agentPod, 'switchyard-agent'), ctx);
    expect(args.slice(0, 4)).toEqual(['run', '--detach', '--name', 'switchyard-agent-node1']);
    expect(values(args, '--network')).toEqual(['ns:/run/netns/n1']);
    expect(values(args, '--runtime')).toEqual(['runc']);
    expect(values(args, '--ulimit')).toEqual(['nofile=1024:1024', 'nproc=1024:1024']);
    expect(values(args, '--pull')).toEqual(['never']);
    expect(args).toContain('--privileged');
    expect(values(args, '--entrypoint')).toEqual([JSON.stringify(['switchyard-agent'])]);
    // The image, then the args, last.
    const image = args.indexOf('ghcr.io/switchyard-net/switchyard-agent:0.1.0');
    expect(args.slice(image)).toEqual(['ghcr.io/switchyard-net/switchyard-agent:0.1.0', '--config=/etc/antrea/antrea-agent.conf', '--data-dir=/var/lib/switchyard', '--api-socket=/var/run/antrea/agent.sock']);
    expect(values(args, '--log-driver')).toEqual(['k8s-file']);
    expect(values(args, '--log-opt')).toEqual(['path=/lab/node1/agent.log']);
  });

  it('env: the downward API fieldRefs resolved, and the Service variables a kubelet adds', () => {
    const env = values(podmanRunArgs(agentPod, containerOf(agentPod, 'switchyard-agent'), ctx), '--env').sort();
    expect(env).toEqual(['KUBERNETES_SERVICE_HOST=192.168.77.254', 'KUBERNETES_SERVICE_PORT=6443', 'NODE_NAME=node1', 'POD_NAME=switchyard-agent-node1', 'POD_NAMESPACE=kube-system']);
  });

  it('volumes: each mount from its volume\'s host path, subPath joined, readOnly and HostToContainer propagation kept, and the ServiceAccount mount', () => {
    const vols = values(podmanRunArgs(agentPod, containerOf(agentPod, 'switchyard-agent'), ctx), '--volume');
    expect(vols).toEqual([
      '/lab/node1/host/config/antrea-agent.conf:/etc/antrea/antrea-agent.conf:ro',
      '/lab/node1/host/var/run/antrea:/var/run/antrea:rw',
      '/lab/node1/host/var/run/openvswitch:/var/run/openvswitch:rw',
      '/lab/node1/host/var/run/netns:/var/run/netns:rw,rslave',
      '/lab/node1/host/var/lib/switchyard:/var/lib/switchyard:rw',
      '/lab/node1/host/run/xtables.lock:/run/xtables.lock:rw',
      '/lab/node1/host/lib/modules:/lib/modules:ro',
      `/lab/node1/serviceaccount:${SERVICE_ACCOUNT_PATH}:ro`,
    ]);
  });

  it('the init container install-cni: run attached and removed, its env and the whole ConfigMap mounted', () => {
    const init = agentPod.initContainers![0]!;
    expect(init.name).toBe('install-cni');
    const args = podmanRunArgs(agentPod, init, { ...ctx, name: 'install-cni-node1', init: true });
    expect(args.slice(0, 4)).toEqual(['run', '--rm', '--name', 'install-cni-node1']);
    expect(values(args, '--env')).toContain('CNI_CONFLIST=/etc/antrea/10-switchyard.conflist');
    expect(values(args, '--volume')).toContain('/lab/node1/host/config:/etc/antrea:ro');
    expect(values(args, '--entrypoint')).toEqual([JSON.stringify(['install-cni'])]);
    expect(args[args.length - 1]).toBe('ghcr.io/switchyard-net/switchyard-agent:0.1.0');
  });

  it("the controller: its own network (the lab's podNetwork), the pod's user, read-only root, every capability dropped, no privilege escalation", () => {
    const c = containerOf(controllerPod, 'switchyard-controller');
    const args = podmanRunArgs(controllerPod, c, { ...ctx, name: 'ctl', volumes: { config: '/lab/cm', requestheader: '/lab/rh' }, podNetwork: 'host' });
    expect(values(args, '--network')).toEqual(['host']);
    expect(values(args, '--user')).toEqual(['65532:65532']);
    expect(args).toContain('--read-only');
    expect(args).not.toContain('--privileged');
    expect(values(args, '--cap-drop')).toEqual(['ALL']);
    expect(values(args, '--security-opt')).toEqual(['no-new-privileges']);
    expect(values(args, '--volume')).toEqual(['/lab/cm/antrea-controller.conf:/etc/antrea/antrea-controller.conf:ro', '/lab/rh:/etc/antrea/requestheader:ro', `/lab/node1/serviceaccount:${SERVICE_ACCOUNT_PATH}:ro`]);
    expect(args.slice(args.indexOf('ghcr.io/switchyard-net/switchyard-controller:0.1.0') + 1)).toEqual(['--config=/etc/antrea/antrea-controller.conf', '--requestheader-client-ca-file=/etc/antrea/requestheader/requestheader-client-ca-file']);
  });

  it('without command the image keeps its entrypoint; automountServiceAccountToken false leaves the token out', () => {
    const pod: PodSpec = { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'img', args: ['a'] }] };
    const args = podmanRunArgs(pod, pod.containers[0]!, { ...ctx, volumes: {} });
    expect(args).not.toContain('--entrypoint');
    expect(values(args, '--volume')).toEqual([]);
    expect(args.slice(-2)).toEqual(['img', 'a']);
  });

  it('refuses, naming the field and value: a mount of a volume the pod lacks, a volume without a host path, an unknown fieldRef, a secret in env', () => {
    const pod: PodSpec = { containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }], volumes: [{ name: 'v', hostPath: { path: '/v' } }] };
    const err = (f: () => unknown): LabError => {
      try {
        f();
      } catch (e) {
        return e as LabError;
      }
      throw new Error('no error');
    };
    expect(err(() => podmanRunArgs(pod, pod.containers[0]!, ctx))).toMatchObject({ code: 'INVALID_ARGUMENT', value: 'nope', message: expect.stringContaining('volume "nope", which the pod spec does not have') });
    const unmapped: PodSpec = { ...pod, containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/x' }] }] };
    expect(err(() => podmanRunArgs(unmapped, unmapped.containers[0]!, { ...ctx, volumes: {} })).message).toContain('volume "v" has no host path');
    const field: PodSpec = { containers: [{ name: 'c', image: 'i', env: [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }] }] };
    expect(err(() => podmanRunArgs(field, field.containers[0]!, ctx))).toMatchObject({ value: 'status.hostIP', path: 'env[HOST_IP].valueFrom.fieldRef.fieldPath' });
    const secret: PodSpec = { containers: [{ name: 'c', image: 'i', env: [{ name: 'PSK', valueFrom: { secretKeyRef: { name: 'antrea-ipsec', key: 'psk' } } }] }] };
    expect(err(() => podmanRunArgs(secret, secret.containers[0]!, ctx)).message).toContain('secretKeyRef antrea-ipsec/psk');
    expect(() => containerOf(agentPod, 'nope')).toThrow(/no container nope \(it has install-cni, switchyard-agent, switchyard-ovs\)/);
    expect(() => podSpecOf(manifest, 'DaemonSet', 'nope')).toThrow(/no DaemonSet nope/);
  });

  it('--runtime takes process or podman, and names the flag otherwise', () => {
    expect(parseRuntime('podman')).toBe('podman');
    expect(() => parseRuntime('docker')).toThrow('--runtime must be one of process, podman, got docker');
  });
});
