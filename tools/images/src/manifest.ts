/**
 * The install manifest (switchyard.yml, as Antrea's antrea.yml): CRDs, RBAC, the ConfigMap with
 * antrea-agent.conf / antrea-controller.conf / the CNI conflist, the controller Deployment and the
 * agent DaemonSet, with options for the traffic mode, encryption, networkPolicyOnly and
 * multi-cluster. Image references come from components.ts, the list `npm run images` builds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkInstallOptions, DEFAULT_INSTALL_OPTIONS, INSTALL_ENCRYPTION_MODES, INSTALL_TRAFFIC_ENCAP_MODES, INSTALL_TUNNEL_TYPES, installAgentConfig, installControllerConfig, loadCrds, type InstallOptions } from '@switchyard/apis';
import YAML from 'yaml';
import { imageReference, REPO_ROOT } from './components';

export type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } & Record<string, unknown> };

export const TRAFFIC_ENCAP_MODES = INSTALL_TRAFFIC_ENCAP_MODES;
export const ENCRYPTION_MODES = INSTALL_ENCRYPTION_MODES;
export const TUNNEL_TYPES = INSTALL_TUNNEL_TYPES;

/**
 * The install options (@switchyard/apis' InstallOptions: traffic mode, tunnel, encryption,
 * networkPolicyOnly, multicluster, whose configuration files the lab writes from the same
 * functions) and the images to run. ipsec adds the switchyard-ipsec container and needs the Secret
 * antrea-ipsec; multicluster adds the multicluster CRDs and a member switchyard-mc-controller.
 */
export interface ManifestOptions extends InstallOptions {
  /** Image repository and tag (default: what `npm run images` builds). */
  repository?: string;
  tag?: string;
}

export const DEFAULT_OPTIONS: ManifestOptions = { ...DEFAULT_INSTALL_OPTIONS };

export const checkOptions: (o: ManifestOptions) => void = checkInstallOptions;

const NAMESPACE = 'kube-system';
const LABELS = { app: 'switchyard' };
const CONFIG_MAP = 'switchyard-config';

const meta = (name: string, extra: Record<string, unknown> = {}, namespaced = true): KubeObject['metadata'] => ({ name, ...(namespaced ? { namespace: NAMESPACE } : {}), labels: { ...LABELS }, ...extra });

/** One part of the manifest: the objects it owns for the given options (composition by list). */
type Part = (o: ManifestOptions) => KubeObject[];

/** CRDs from @switchyard/apis: the crd.antrea.io and AdminNetworkPolicy kinds, and the multicluster ones with the option; sorted by name. */
const crds: Part = (o) =>
  loadCrds()
    .filter((c) => o.multicluster || !c.spec.group.startsWith('multicluster.'))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .map((c) => c as unknown as KubeObject);

/**
 * RBAC: packages/controller/build/rbac.yaml is its one source (hand-written, each rule with its
 * reason; the lab and the integration tests apply it too).
 */
export const RBAC_SOURCE = join(REPO_ROOT, 'packages/controller/build/rbac.yaml');
const rbac: Part = () => YAML.parseAllDocuments(readFileSync(RBAC_SOURCE, 'utf8')).map((d) => d.toJSON() as KubeObject);

/** antrea-agent.conf in the ConfigMap: @switchyard/apis' installAgentConfig (the lab writes its nodes' from the same function). */
export const agentConf = (o: ManifestOptions): Record<string, unknown> => installAgentConfig(o);

/** antrea-controller.conf in the ConfigMap: @switchyard/apis' installControllerConfig. */
export const controllerConf = (o: ManifestOptions): Record<string, unknown> => installControllerConfig(o);

/** The CNI network configuration: ours with portmap, or (networkPolicyOnly) the plugin entry install-cni appends to the primary's conflist. */
export function cniConflist(o: ManifestOptions): Record<string, unknown> {
  const ours = { type: 'switchyard-cni', cniSocket: '/var/run/antrea/cni.sock' };
  if (o.networkPolicyOnly) return ours;
  return { cniVersion: '1.0.0', name: 'switchyard', plugins: [ours, { type: 'portmap', capabilities: { portMappings: true } }] };
}

const yamlText = (v: unknown): string => YAML.stringify(v, { lineWidth: 0 });

const config: Part = (o) => [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(CONFIG_MAP),
    data: {
      'antrea-agent.conf': yamlText(agentConf(o)),
      'antrea-controller.conf': yamlText(controllerConf(o)),
      [o.networkPolicyOnly ? 'switchyard-cni.conf' : '10-switchyard.conflist']: `${JSON.stringify(cniConflist(o), null, 2)}\n`,
    },
  },
];

const WEBHOOKS: ReadonlyArray<{ name: string; path: string; resource: string; scope: 'Cluster' | 'Namespaced'; deletes: boolean; versions?: string[] }> = [
  { name: 'acnp', path: 'acnp', resource: 'clusternetworkpolicies', scope: 'Cluster', deletes: false },
  { name: 'anp', path: 'anp', resource: 'networkpolicies', scope: 'Namespaced', deletes: false },
  { name: 'tier', path: 'tier', resource: 'tiers', scope: 'Cluster', deletes: true },
  { name: 'clustergroup', path: 'clustergroup', resource: 'clustergroups', scope: 'Cluster', deletes: true },
  { name: 'group', path: 'group', resource: 'groups', scope: 'Namespaced', deletes: true },
  { name: 'ippool', path: 'ippool', resource: 'ippools', scope: 'Cluster', deletes: false, versions: ['v1beta1'] },
  { name: 'externalippool', path: 'externalippool', resource: 'externalippools', scope: 'Cluster', deletes: false },
  { name: 'externalnode', path: 'externalnode', resource: 'externalnodes', scope: 'Namespaced', deletes: false },
  { name: 'traceflow', path: 'traceflow', resource: 'traceflows', scope: 'Cluster', deletes: false },
  { name: 'egress', path: 'egress', resource: 'egresses', scope: 'Cluster', deletes: false },
];

const fieldEnv = (name: string, fieldPath: string): Record<string, unknown> => ({ name, valueFrom: { fieldRef: { fieldPath } } });

const controller: Part = (o) => [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('switchyard'),
    spec: { selector: { app: 'switchyard', component: 'switchyard-controller' }, ports: [{ name: 'api', port: 443, protocol: 'TCP', targetPort: 'api' }] },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('switchyard-controller', { labels: { ...LABELS, component: 'switchyard-controller' } }),
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: 'switchyard', component: 'switchyard-controller' } },
      template: {
        metadata: { labels: { app: 'switchyard', component: 'switchyard-controller' } },
        spec: {
          serviceAccountName: 'switchyard-controller',
          priorityClassName: 'system-cluster-critical',
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [
            { key: 'CriticalAddonsOnly', operator: 'Exists' },
            { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
          ],
          // The image's user (65532, switchyard); the API port is above 1024.
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
          containers: [
            {
              name: 'switchyard-controller',
              image: imageReference('switchyard-controller', imageOptions(o)),
              imagePullPolicy: 'IfNotPresent',
              command: ['switchyard-controller'],
              args: ['--config=/etc/antrea/antrea-controller.conf', '--requestheader-client-ca-file=/etc/antrea/requestheader/requestheader-client-ca-file'],
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace'), fieldEnv('NODE_NAME', 'spec.nodeName')],
              ports: [{ name: 'api', containerPort: 10349, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'api', scheme: 'HTTPS' }, periodSeconds: 10 },
              livenessProbe: { httpGet: { path: '/livez', port: 'api', scheme: 'HTTPS' }, periodSeconds: 10, failureThreshold: 5 },
              resources: { requests: { cpu: '200m', memory: '256Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: [
                { name: 'config', mountPath: '/etc/antrea/antrea-controller.conf', subPath: 'antrea-controller.conf', readOnly: true },
                { name: 'requestheader', mountPath: '/etc/antrea/requestheader', readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: CONFIG_MAP } },
            // The front-proxy CA kube-apiserver publishes for aggregated API servers.
            { name: 'requestheader', configMap: { name: 'extension-apiserver-authentication', items: [{ key: 'requestheader-client-ca-file', path: 'requestheader-client-ca-file' }] } },
          ],
        },
      },
    },
  },
  {
    // The controller also creates/updates this at start with its CA in caBundle.
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: meta('v1beta2.controlplane.switchyard.io', {}, false),
    spec: { group: 'controlplane.switchyard.io', version: 'v1beta2', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: NAMESPACE, name: 'switchyard', port: 443 } },
  },
  {
    // The controller reads the front-proxy CA from kube-system.
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta('switchyard-controller-authentication-reader'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'switchyard-controller', namespace: NAMESPACE }],
  },
  {
    // The Antrea kinds' validation; the controller fills in caBundle at start.
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: meta('crdvalidator.antrea.io', {}, false),
    webhooks: WEBHOOKS.map((w) => ({
      name: `${w.name}validator.antrea.io`,
      clientConfig: { service: { namespace: NAMESPACE, name: 'switchyard', path: `/validate/${w.path}`, port: 443 } },
      rules: [{ apiGroups: ['crd.antrea.io'], apiVersions: w.versions ?? ['*'], resources: [w.resource], operations: w.deletes ? ['CREATE', 'UPDATE', 'DELETE'] : ['CREATE', 'UPDATE'], scope: w.scope }],
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    })),
  },
];

const hostPath = (name: string, path: string, type?: string): Record<string, unknown> => ({ name, hostPath: { path, ...(type ? { type } : {}) } });

function imageOptions(o: ManifestOptions): { repository?: string; tag?: string } {
  return { ...(o.repository ? { repository: o.repository } : {}), ...(o.tag ? { tag: o.tag } : {}) };
}

function agentContainers(o: ManifestOptions, image: string): Record<string, unknown>[] {
  const ipsec = o.encryption === 'ipsec';
  const containers: Record<string, unknown>[] = [
    {
      name: 'switchyard-agent',
      image,
      command: ['switchyard-agent'],
      args: ['--config=/etc/antrea/antrea-agent.conf', '--data-dir=/var/lib/switchyard', '--api-socket=/var/run/antrea/agent.sock'],
      env: [
        fieldEnv('NODE_NAME', 'spec.nodeName'),
        fieldEnv('POD_NAME', 'metadata.name'),
        fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
        // ipsec: the pre-shared key from the Secret antrea-ipsec (Antrea's name), required in that mode only.
        ...(ipsec ? [{ name: 'ANTREA_IPSEC_PSK', valueFrom: { secretKeyRef: { name: 'antrea-ipsec', key: 'psk' } } }] : []),
      ],
      // NET_ADMIN, the host's netns, OVS and iptables: the agent runs as root, privileged (as Antrea's).
      securityContext: { privileged: true },
      readinessProbe: { exec: { command: ['sh', '-c', 'test -S /var/run/antrea/cni.sock'] }, periodSeconds: 10 },
      volumeMounts: [
        { name: 'config', mountPath: '/etc/antrea/antrea-agent.conf', subPath: 'antrea-agent.conf', readOnly: true },
        { name: 'host-var-run-antrea', mountPath: '/var/run/antrea' },
        { name: 'host-var-run-ovs', mountPath: '/var/run/openvswitch' },
        { name: 'host-var-run-netns', mountPath: '/var/run/netns', mountPropagation: 'HostToContainer' },
        { name: 'host-var-lib-switchyard', mountPath: '/var/lib/switchyard' },
        { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
        { name: 'host-lib-modules', mountPath: '/lib/modules', readOnly: true },
      ],
    },
    {
      // OVS in the pod (Antrea's antrea-ovs container): ovsdb-server and ovs-vswitchd from the image.
      name: 'switchyard-ovs',
      image,
      command: ['start-ovs'],
      securityContext: { privileged: true },
      livenessProbe: { exec: { command: ['ovs-appctl', '-t', '/var/run/openvswitch/ovs-vswitchd.pid', 'version'] }, periodSeconds: 10, timeoutSeconds: 5 },
      volumeMounts: [
        { name: 'host-var-run-ovs', mountPath: '/var/run/openvswitch' },
        { name: 'host-var-lib-ovs', mountPath: '/var/lib/openvswitch' },
        { name: 'host-var-log-ovs', mountPath: '/var/log/openvswitch' },
        { name: 'host-lib-modules', mountPath: '/lib/modules', readOnly: true },
      ],
    },
  ];
  if (ipsec) {
    containers.push({
      // ovs-monitor-ipsec turns the tunnel ports' psk options into strongSwan connections (Antrea's antrea-ipsec).
      name: 'switchyard-ipsec',
      image,
      command: ['start-ipsec'],
      securityContext: { privileged: true },
      volumeMounts: [
        { name: 'host-var-run-ovs', mountPath: '/var/run/openvswitch' },
        { name: 'host-var-log-ovs', mountPath: '/var/log/openvswitch' },
        { name: 'host-var-log-strongswan', mountPath: '/var/log/strongswan' },
      ],
    });
  }
  return containers;
}

const agent: Part = (o) => {
  const image = imageReference('switchyard-agent', imageOptions(o));
  const ipsec = o.encryption === 'ipsec';
  const install = o.networkPolicyOnly
    ? { command: ['install-cni'], env: [{ name: 'CNI_CHAINED_CONF', value: '/etc/antrea/switchyard-cni.conf' }] }
    : { command: ['install-cni'], env: [{ name: 'CNI_CONFLIST', value: '/etc/antrea/10-switchyard.conflist' }] };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta('switchyard-agent', { labels: { ...LABELS, component: 'switchyard-agent' } }),
      spec: {
        selector: { matchLabels: { app: 'switchyard', component: 'switchyard-agent' } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: { app: 'switchyard', component: 'switchyard-agent' } },
          spec: {
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            serviceAccountName: 'switchyard-agent',
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ operator: 'Exists' }],
            initContainers: [
              {
                name: 'install-cni',
                image,
                ...install,
                securityContext: { privileged: true },
                volumeMounts: [
                  { name: 'config', mountPath: '/etc/antrea', readOnly: true },
                  { name: 'host-cni-bin', mountPath: '/host/opt/cni/bin' },
                  { name: 'host-cni-conf', mountPath: '/host/etc/cni/net.d' },
                ],
              },
            ],
            containers: agentContainers(o, image),
            volumes: [
              { name: 'config', configMap: { name: CONFIG_MAP } },
              hostPath('host-cni-bin', '/opt/cni/bin', 'DirectoryOrCreate'),
              hostPath('host-cni-conf', '/etc/cni/net.d', 'DirectoryOrCreate'),
              hostPath('host-var-run-antrea', '/var/run/antrea', 'DirectoryOrCreate'),
              hostPath('host-var-run-ovs', '/var/run/openvswitch', 'DirectoryOrCreate'),
              hostPath('host-var-run-netns', '/var/run/netns', 'DirectoryOrCreate'),
              hostPath('host-var-lib-switchyard', '/var/lib/switchyard', 'DirectoryOrCreate'),
              hostPath('host-var-lib-ovs', '/var/lib/openvswitch', 'DirectoryOrCreate'),
              hostPath('host-var-log-ovs', '/var/log/openvswitch', 'DirectoryOrCreate'),
              hostPath('host-lib-modules', '/lib/modules'),
              hostPath('xtables-lock', '/run/xtables.lock', 'FileOrCreate'),
              ...(ipsec ? [hostPath('host-var-log-strongswan', '/var/log/strongswan', 'DirectoryOrCreate')] : []),
            ],
          },
        },
      },
    },
  ];
};

/** Multi-cluster member: switchyard-mc-controller in member mode in kube-system, its account and role, its (empty) MultiClusterConfig. */
const multicluster: Part = (o) => {
  if (!o.multicluster) return [];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('switchyard-mc-controller') },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta('switchyard-mc-controller', {}, false),
      rules: [
        // The ClusterSet's kinds, exported and imported Services, and stretched policy's label identities.
        { apiGroups: ['multicluster.crd.antrea.io', 'multicluster.x-k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['services', 'endpoints'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
        // Gateway election reads Nodes and their annotations; label identities read pods' Namespaces.
        { apiGroups: [''], resources: ['nodes', 'namespaces', 'pods'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['patch'] },
        { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['crd.antrea.io'], resources: ['clusternetworkpolicies', 'tiers'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta('switchyard-mc-controller', {}, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'switchyard-mc-controller' },
      subjects: [{ kind: 'ServiceAccount', name: 'switchyard-mc-controller', namespace: NAMESPACE }],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('antrea-mc-controller-config'),
      // Empty values mean unset, as in Antrea's manifest; see docs/multicluster.md for the keys.
      data: { 'controller_manager_config.yaml': yamlText({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'MultiClusterConfig', serviceCIDR: '', podCIDRs: [], gatewayIPPrecedence: 'internal', endpointIPType: 'ClusterIP', enableStretchedNetworkPolicy: false }) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('switchyard-mc-controller', { labels: { ...LABELS, component: 'switchyard-mc-controller' } }),
      spec: {
        replicas: 1,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { app: 'switchyard', component: 'switchyard-mc-controller' } },
        template: {
          metadata: { labels: { app: 'switchyard', component: 'switchyard-mc-controller' } },
          spec: {
            serviceAccountName: 'switchyard-mc-controller',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
            containers: [
              {
                name: 'switchyard-mc-controller',
                image: imageReference('switchyard-controller', imageOptions(o)),
                imagePullPolicy: 'IfNotPresent',
                command: ['switchyard-mc-controller'],
                args: ['--mode=member', `--namespace=${NAMESPACE}`],
                env: [fieldEnv('POD_NAMESPACE', 'metadata.namespace')],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    },
  ];
};

/** The manifest's parts, in apply order: kinds first, then accounts and roles, config, workloads. */
const PARTS: readonly Part[] = [crds, rbac, multicluster, config, controller, agent];

/** Every object of switchyard.yml for the options (unset fields take DEFAULT_OPTIONS). */
export function generateManifest(options: Partial<ManifestOptions> = {}): KubeObject[] {
  const o = { ...DEFAULT_OPTIONS, ...options };
  checkOptions(o);
  return PARTS.flatMap((p) => p(o));
}

/** The manifest as one multi-document YAML file, with a header naming the options it was generated with. */
export function renderManifest(options: Partial<ManifestOptions> = {}): string {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const header = `# switchyard.yml: generated by \`npm run manifest -w @switchyard/images\` (tools/images/src/manifest.ts); do not edit.\n# Options: ${JSON.stringify(o)}\n`;
  return header + generateManifest(o).map((obj) => `---\n${YAML.stringify(obj, { lineWidth: 0 })}`).join('');
}

/** Every image an object list names (containers and init containers of every pod template). */
export function imageReferences(objects: readonly KubeObject[]): string[] {
  const out = new Set<string>();
  for (const obj of objects) {
    const pod = ((obj['spec'] as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec ?? {}) as { containers?: Array<{ image: string }>; initContainers?: Array<{ image: string }> };
    for (const c of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) out.add(c.image);
  }
  return [...out].sort();
}
