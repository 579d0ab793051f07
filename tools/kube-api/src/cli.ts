#!/usr/bin/env node
// switchyard-kube-api: start the embedded API server and print where its kubeconfig is; stops on
// SIGTERM/SIGINT.

import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { lineLogger, onShutdown } from '@switchyard/runtime/process';
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
  .option('--service-cidr <cidr>', 'Service ClusterIP range', '10.96.0.0/12')
  .option('--kubeconfig-out <file>', 'also write the admin kubeconfig here')
  .option('--extra-san <san...>', 'extra subjectAltNames for the serving certificate')
  .option('-v, --verbose', 'log requests and controller errors to stderr');

program.parse();
const o = program.opts<{ port: string; host: string; tls: boolean; dataDir?: string; tokenFile?: string; adminTokenFile?: string; serviceCidr: string; kubeconfigOut?: string; extraSan?: string[]; verbose?: boolean }>();

const stderrLogger = lineLogger();
const opts: KubeApiOptions = { port: Number(o.port), host: o.host, tls: o.tls, serviceCIDR: o.serviceCidr };
if (o.dataDir) opts.dataDir = o.dataDir;
if (o.tokenFile) opts.tokenFile = o.tokenFile;
if (o.adminTokenFile) opts.adminToken = readFileSync(o.adminTokenFile, 'utf8').trim();
if (o.extraSan) opts.extraSans = o.extraSan;
if (o.verbose) opts.logger = stderrLogger;

const server = await startKubeApi(opts);
const path = o.kubeconfigOut ? server.writeKubeconfig(o.kubeconfigOut) : server.kubeconfigPath;
process.stdout.write(`${path}\n`);
process.stderr.write(`kube-api listening on ${server.url}\n`);
onShutdown(() => server.stop(), { log: stderrLogger });
