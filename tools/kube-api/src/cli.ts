#!/usr/bin/env node
// switchyard-kube-api: start the embedded API server and print where its kubeconfig is; stops on
// SIGTERM/SIGINT.

import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { lineLogger, onShutdown } from '@switchyard/runtime/process';
import { IpamError } from '@switchyard/ipam';
import { startKubeApi, type KubeApiOptions } from './index';

const program = new Command()
  .name('switchyard-kube-api')
  .description('Embedded Kubernetes API server stand-in with controller-manager functions')
  .option('--port <port>', 'listen port (0 picks a free one)', '0')
  .option('--host <addr>', 'listen address', '127.0.0.1')
  .option('--no-tls', 'serve plain HTTP instead of HTTPS')
  .option('--data-dir <dir>', 'persist objects, PKI and tokens in this directory')
  .option('--token-file <file>', 'static token file (token,user,uid,"group1,group2")')
  .option('--admin-token-file <file>', 'read the admin token from this file')
  .option('--service-cidr <cidr>', 'Service ClusterIP range; dual-stack: <v4 cidr>,<v6 cidr> (the first is the primary family)', '10.96.0.0/12')
  .option('--cluster-cidr <cidr>', 'pod network: give each Node without podCIDRs one subnet per family (<v4 cidr>,<v6 cidr> for dual-stack)')
  .option('--node-cidr-mask-size-ipv4 <n>', "prefix length of each Node's IPv4 subnet", '24')
  .option('--node-cidr-mask-size-ipv6 <n>', "prefix length of each Node's IPv6 subnet", '64')
  .option('--kubeconfig-out <file>', 'also write the admin kubeconfig here')
  .option('--extra-san <san...>', 'extra subjectAltNames for the serving certificate')
  .option('-v, --verbose', 'log requests and controller errors to stderr');

program.parse();
const o = program.opts<{ port: string; host: string; tls: boolean; dataDir?: string; tokenFile?: string; adminTokenFile?: string; serviceCidr: string; clusterCidr?: string; nodeCidrMaskSizeIpv4: string; nodeCidrMaskSizeIpv6: string; kubeconfigOut?: string; extraSan?: string[]; verbose?: boolean }>();

const stderrLogger = lineLogger();
const opts: KubeApiOptions = { port: Number(o.port), host: o.host, tls: o.tls, serviceCIDR: o.serviceCidr };
if (o.clusterCidr) Object.assign(opts, { clusterCIDR: o.clusterCidr, nodeCIDRMaskSizeIPv4: Number(o.nodeCidrMaskSizeIpv4), nodeCIDRMaskSizeIPv6: Number(o.nodeCidrMaskSizeIpv6) });
if (o.dataDir) opts.dataDir = o.dataDir;
if (o.tokenFile) opts.tokenFile = o.tokenFile;
if (o.adminTokenFile) opts.adminToken = readFileSync(o.adminTokenFile, 'utf8').trim();
if (o.extraSan) opts.extraSans = o.extraSan;
if (o.verbose) opts.logger = stderrLogger;

/** The flag each node IPAM setting comes from, to name it in an error. */
const FLAG_OF: Record<string, string> = { nodeMaskSizeIPv4: '--node-cidr-mask-size-ipv4', nodeMaskSizeIPv6: '--node-cidr-mask-size-ipv6' };

let server: Awaited<ReturnType<typeof startKubeApi>>;
try {
  server = await startKubeApi(opts);
} catch (e) {
  // A setting that cannot work (IpamError INVALID_CONFIG, with the setting's path): one line naming
  // the flag and value, exit 2, as a command-line error; anything else is a crash with its stack.
  if (!(e instanceof IpamError) || e.code !== 'INVALID_CONFIG' || e.path === undefined) throw e;
  const flag = FLAG_OF[e.path] ?? (e.path.startsWith('clusterCIDRs') ? '--cluster-cidr' : e.path);
  process.stderr.write(`switchyard-kube-api: ${flag}: invalid value ${JSON.stringify(String(e.value))}: ${e.message}\n`);
  process.exit(2);
}
const path = o.kubeconfigOut ? server.writeKubeconfig(o.kubeconfigOut) : server.kubeconfigPath;
process.stdout.write(`${path}\n`);
process.stderr.write(`kube-api listening on ${server.url}\n`);
onShutdown(() => server.stop(), { log: stderrLogger });
