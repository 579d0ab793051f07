// The archives `npm run images` wrote, loaded and run with podman as docs/install.md says (runc, the
// sandbox's ulimits): the binaries start, the init step installs the plugin, the labels and users are right.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { imageReference, REPO_ROOT } from '../src/components';
import { cniConflist, DEFAULT_OPTIONS } from '../src/manifest';

const exec = promisify(execFile);
const OUT = process.env.SWITCHYARD_IMAGES_DIR ?? join(REPO_ROOT, 'dist/images');
const AGENT = imageReference('switchyard-agent');
const CONTROLLER = imageReference('switchyard-controller');
const RUN = ['run', '--rm', '--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024', '--network', 'none'];

const podman = async (args: string[], env?: Record<string, string>): Promise<string> => (await exec('podman', args, { timeout: 300_000, maxBuffer: 16 * 1024 * 1024, ...(env ? { env: { ...process.env, ...env } } : {}) })).stdout;

beforeAll(async () => {
  for (const name of ['switchyard-agent', 'switchyard-controller']) {
    const archive = join(OUT, `${name}.oci.tar`);
    if (!existsSync(archive)) throw new Error(`${archive} is missing: run \`npm run images\` first`);
    await podman(['load', '--quiet', '-i', archive]);
  }
}, 600_000);

describe('switchyard-agent image', () => {
  it('runs switchyard-agent --help as root, with node from the image', async () => {
    const out = await podman([...RUN, AGENT, 'sh', '-c', 'id -u; node --version; switchyard-agent --help']);
    const [uid, node, ...help] = out.split('\n');
    expect(uid).toBe('0');
    expect(node).toBe('v20.20.2');
    expect(help.join('\n')).toContain('Usage: switchyard-agent');
  }, 300_000);

  it('answers CNI VERSION from the installed plugin, and install-cni puts it and the conflist on the host paths', async () => {
    const host = mkdtempSync(join(tmpdir(), 'switchyard-install-cni-'));
    try {
      writeFileSync(join(host, '10-switchyard.conflist'), JSON.stringify(cniConflist(DEFAULT_OPTIONS)));
      mkdirSync(join(host, 'conf-dir'));
      await podman([...RUN, '-v', `${host}:/host/opt/cni/bin`, '-v', `${host}:/src:ro`, '-v', `${host}/conf-dir:/host/etc/cni/net.d`, '-e', 'CNI_CONFLIST=/src/10-switchyard.conflist', AGENT, 'install-cni']);
      expect(readdirSync(host).sort()).toEqual(expect.arrayContaining(['bandwidth', 'loopback', 'portmap', 'switchyard-cni']));
      expect(statSync(join(host, 'switchyard-cni')).mode & 0o777).toBe(0o755);
      expect(JSON.parse(readFileSync(join(host, 'conf-dir/10-switchyard.conflist'), 'utf8'))).toEqual(cniConflist(DEFAULT_OPTIONS));
      // The installed plugin is the static one: it runs on this host, outside the image.
      const version = await exec(join(host, 'switchyard-cni'), [], { env: { CNI_COMMAND: 'VERSION' } });
      expect(JSON.parse(version.stdout)).toMatchObject({ cniVersion: expect.any(String), supportedVersions: expect.arrayContaining(['1.0.0']) });
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  }, 300_000);

  it('install-cni with networkPolicyOnly appends the plugin to the primary CNI conflist as 05-switchyard.conflist', async () => {
    const host = mkdtempSync(join(tmpdir(), 'switchyard-install-cni-'));
    try {
      mkdirSync(join(host, 'bin'));
      mkdirSync(join(host, 'conf'));
      const primary = { cniVersion: '1.0.0', name: 'primary', plugins: [{ type: 'ptp', ipam: { type: 'host-local', subnet: '10.1.0.0/24' } }] };
      writeFileSync(join(host, 'conf/10-primary.conflist'), JSON.stringify(primary));
      writeFileSync(join(host, 'switchyard-cni.conf'), JSON.stringify(cniConflist({ ...DEFAULT_OPTIONS, networkPolicyOnly: true })));
      await podman([...RUN, '-v', `${host}/bin:/host/opt/cni/bin`, '-v', `${host}/conf:/host/etc/cni/net.d`, '-v', `${host}/switchyard-cni.conf:/etc/antrea/switchyard-cni.conf:ro`, '-e', 'CNI_CHAINED_CONF=/etc/antrea/switchyard-cni.conf', AGENT, 'install-cni']);
      expect(readdirSync(join(host, 'conf')).sort()).toEqual(['05-switchyard.conflist', '10-primary.conflist']);
      const chained = JSON.parse(readFileSync(join(host, 'conf/05-switchyard.conflist'), 'utf8')) as typeof primary;
      expect(chained).toEqual({ ...primary, plugins: [...primary.plugins, { type: 'switchyard-cni', cniSocket: '/var/run/antrea/cni.sock' }] });
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  }, 300_000);

  it('holds the OVS userspace tools and the programs the agent execs', async () => {
    const out = await podman([...RUN, AGENT, 'sh', '-c', 'for p in ovsdb-server ovs-vswitchd ovs-vsctl ovs-appctl /usr/share/openvswitch/scripts/ovs-monitor-ipsec ip tc iptables iptables-restore ethtool conntrack arping sysctl nsenter flock perl wireguard-go wg ipsec start-ovs install-cni; do command -v $p >/dev/null || echo missing $p; done; for p in npm gcc cc make; do command -v $p >/dev/null && echo build-tool $p; done; true']);
    expect(out.trim()).toBe('');
  }, 300_000);

  it('runs iptables through iptables-wrapper, which records the backend it chose', async () => {
    const out = await podman([...RUN, AGENT, 'sh', '-c', 'command -v iptables; command -v ip6tables-restore; iptables -w -S INPUT >/dev/null 2>&1; cat /run/switchyard/iptables-mode']);
    const [iptables, restore, mode] = out.trim().split('\n');
    expect([iptables, restore]).toEqual(['/usr/local/sbin/iptables', '/usr/local/sbin/ip6tables-restore']);
    expect(['legacy', 'nft']).toContain(mode);
  }, 300_000);

  it('start-ovs runs ovsdb-server and ovs-vswitchd in the container: a bridge added without --no-wait is realised', async () => {
    // ovs-vsctl without --no-wait returns once ovs-vswitchd has applied the change; --retry waits for the db socket.
    const out = await podman([...RUN, '--privileged', AGENT, 'sh', '-c', 'start-ovs >/tmp/ovs.log 2>&1 & ovs-vsctl --retry --timeout=240 add-br br0 -- set bridge br0 datapath_type=netdev && ovs-vsctl get interface br0 ofport']);
    expect(out.trim()).toBe('65534');
  }, 300_000);

  it('carries the OCI labels: version, revision (a commit), source', async () => {
    const labels = JSON.parse(await podman(['image', 'inspect', '--format', '{{json .Labels}}', AGENT])) as Record<string, string>;
    expect(labels['org.opencontainers.image.version']).toBe(AGENT.slice(AGENT.lastIndexOf(':') + 1));
    expect(labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    expect(labels['org.opencontainers.image.source']).toBe('https://github.com/switchyard-net/switchyard');
  }, 300_000);
});

describe('switchyard-controller image', () => {
  it('runs switchyard-controller and switchyard-mc-controller --help as uid 65532', async () => {
    const out = await podman([...RUN, CONTROLLER, 'sh', '-c', 'id -un; id -u; switchyard-controller --help | head -1; switchyard-mc-controller --help | head -1']);
    expect(out.trim().split('\n')).toEqual(['switchyard', '65532', 'Usage: switchyard-controller [options]', 'Usage: switchyard-mc-controller [options]']);
  }, 300_000);
});
