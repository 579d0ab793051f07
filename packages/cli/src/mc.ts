// `yardctl mc`: the Multi-cluster commands of antctl mc over the Kubernetes API: get the ClusterSet
// objects, init a leader's ClusterSet (and a member token), join a member from a join config, leave,
// destroy.
import { readFileSync } from 'node:fs';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { Command } from 'commander';
import type { KubeWriter } from './client';
import { examples, withOutput, type CommandContext, type OutputOpts } from './command';
import { CliError } from './errors';
import {
  CREATED_BY_ANNOTATION,
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  DEFAULT_MEMBER_TOKEN,
  MEMBER_ROLE,
  memberTokenSecret,
  parseJoinConfig,
  parseTokenSecretFile,
  renderJoinConfig,
  type JoinConfig,
  type TokenSecret,
} from './mc-join-config';
import { clusterSetTable, memberClusterAnnounceTable, resourceExportTable, resourceImportTable, type ClusterSetItem, type ResourceExportItem } from './mc-views';
import type { Table } from './output';

const MC = '/apis/multicluster.crd.antrea.io';
const ROLE_PATH = (ns: string): string => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface Kind {
  plural: string;
  version: string;
  aliases: string[];
  what: string;
  table: (items: never[]) => Table;
}
const KINDS: Record<string, Kind> = {
  clusterset: { plural: 'clustersets', version: 'v1alpha2', aliases: ['clustersets'], what: 'ClusterSets: per cluster, its Ready condition as the leader (members) or the member (its leader) sees it', table: clusterSetTable as (i: never[]) => Table },
  resourceexport: { plural: 'resourceexports', version: 'v1alpha1', aliases: ['resourceexports', 're'], what: "ResourceExports in the leader's common area, with the leader's verdict", table: resourceExportTable as (i: never[]) => Table },
  resourceimport: { plural: 'resourceimports', version: 'v1alpha1', aliases: ['resourceimports', 'ri'], what: 'ResourceImports the leader merged from the exports', table: resourceImportTable as (i: never[]) => Table },
  memberclusterannounce: { plural: 'memberclusterannounces', version: 'v1alpha1', aliases: ['memberclusterannounces', 'mca'], what: "members' heartbeats in the leader", table: memberClusterAnnounceTable as (i: never[]) => Table },
};

const CLUSTERSET_KIND = KINDS['clusterset'] as Kind;

const collection = (k: Kind, ns?: string): string => `${MC}/${k.version}${ns ? `/namespaces/${ns}` : ''}/${k.plural}`;

function checkName(v: string | undefined, flag: string, what: string): string {
  if (v === undefined || v === '') throw new CliError('USAGE', `${flag} is required (${what})`, v, flag);
  if (!DNS1123.test(v) || v.length > 63) throw new CliError('USAGE', `invalid ${flag} "${v}": must be a DNS-1123 label (lower case letters, digits and '-')`, v, flag);
  return v;
}

/** An object to create: a name, and whatever else its kind has. */
type Manifest = { metadata: { name: string } & Record<string, unknown> } & Record<string, unknown>;

const isStatus = (e: unknown, status: number): boolean => e instanceof CliError && e.value === status;

/** Adds `mc` and its subcommands to `program`. */
export function addMcCommands(program: Command, ctx: CommandContext): void {
  const mc = program.command('mc').description('Multi-cluster: inspect ClusterSets and their exports/imports, set up a leader (init), join and leave members');
  examples(mc, [
    ['Initialize the leader ClusterSet and write a join config with a member token', 'yardctl mc init --clusterset test-clusterset --clusterid test-cluster-north -n antrea-multicluster --create-token -j join-config.yml'],
    ['Join a member with it', 'yardctl --kubeconfig east.kubeconfig mc join --config-file join-config.yml --clusterid test-cluster-east'],
    ["The leader's view of its members", 'yardctl mc get clusterset -n antrea-multicluster'],
  ]);
  addMcGetCommands(mc, ctx);
  addMcInitCommand(mc, ctx);
  addMcJoinCommand(mc, ctx);
  addMcLeaveCommand(mc, ctx);
  addMcDestroyCommand(mc, ctx);
}

/** `mc get <kind>` for each of {@link KINDS}, and `mc get joinconfig`. */
function addMcGetCommands(mc: Command, ctx: CommandContext): void {
  const get = mc.command('get').description('Print ClusterSets, ResourceExports, ResourceImports, MemberClusterAnnounces, or the join config of a leader');
  for (const [name, k] of Object.entries(KINDS)) {
    examples(
      withOutput(
        get
          .command(name)
          .aliases(k.aliases)
          .description(`Print ${k.what}`)
          .argument('[name]', 'object name')
          .option('-n, --namespace <ns>', 'only this namespace (default: all namespaces)')
          .option('-A, --all-namespaces', 'all namespaces (the default)')
          .option('--clusterid <id>', name === 'resourceexport' ? 'only exports of this member cluster' : name === 'clusterset' ? 'only ClusterSets of this cluster ID (spec.clusterID)' : 'only objects of this cluster ID'),
      ),
      [
        [`List ${k.plural}`, `yardctl mc get ${name}`],
        [`Those of the leader's namespace, as YAML`, `yardctl mc get ${k.aliases.at(-1) ?? name} -n antrea-multicluster -o yaml`],
      ],
    ).action(async (obj: string | undefined, o: OutputOpts & { namespace?: string; allNamespaces?: boolean; clusterid?: string }) => {
      if (o.namespace !== undefined && o.allNamespaces) throw new CliError('USAGE', 'use only one of -n and -A', o.namespace, '--namespace');
      const list = await ctx.kubeWriter().request<{ items: (ClusterSetItem & ResourceExportItem)[] }>('GET', collection(k, o.namespace));
      let items = list.items
        .filter((i) => !o.clusterid || (i.spec?.clusterID ?? (i as { clusterID?: string }).clusterID) === o.clusterid)
        .sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
      if (obj !== undefined) {
        items = items.filter((i) => i.metadata.name === obj);
        if (items.length === 0) throw new CliError('NOT_FOUND', `Error from server (NotFound): ${k.plural}.multicluster.crd.antrea.io "${obj}" not found`, obj, k.plural);
        if (items.length === 1) return ctx.print(o, items[0], () => k.table(items as never[]));
      }
      ctx.printList(o, { apiVersion: 'v1', kind: 'List', items }, items.length, () => k.table(items as never[]), o.namespace);
    });
  }

  examples(
    get
      .command('joinconfig')
      .description("Print the parameters a member needs to join the leader's ClusterSet (a join config file for `mc join`)")
      .option('-n, --namespace <ns>', "the leader's Multi-cluster namespace", DEFAULT_LEADER_NAMESPACE)
      .option('--member-token <name>', 'append the manifest of this member token Secret')
      .option('-o, --output <format>', 'yaml (a join config file) or json', 'yaml'),
    [
      ['The join config of the leader in antrea-multicluster', 'yardctl mc get joinconfig > join-config.yml'],
      ['With the default member token', 'yardctl mc get joinconfig --member-token default-member-token'],
    ],
  ).action(async (o: { namespace: string; memberToken?: string; output: string }) => {
    if (o.output !== 'yaml' && o.output !== 'json') throw new CliError('USAGE', `unable to match a printer suitable for the output format "${o.output}", allowed formats are: yaml,json`, o.output, '--output');
    const { config, token } = await joinConfigOf(ctx.kubeWriter(), o.namespace, o.memberToken);
    ctx.io.stdout.write(o.output === 'json' ? `${JSON.stringify(token ? { ...config, tokenSecret: token } : config, null, 2)}\n` : renderJoinConfig(config, token));
  });
}

function addMcInitCommand(mc: Command, ctx: CommandContext): void {
  examples(
    mc
      .command('init')
      .description("Initialize a ClusterSet in the leader: its ClusterSet, the member Role, and with --create-token a member token (ServiceAccount, token Secret, RoleBinding); prints the join config")
      .option('--clusterset <id>', 'ClusterSet ID (the ClusterSet is named so)')
      .option('--clusterid <id>', 'cluster ID of the leader')
      .option('-n, --namespace <ns>', "the leader's Multi-cluster namespace (must exist)", DEFAULT_LEADER_NAMESPACE)
      .option('--create-token', `create the member token ${DEFAULT_MEMBER_TOKEN} and put its Secret manifest in the join config`)
      .option('-j, --join-config-file <file>', 'write the join config to this file (default: stdout, and progress on stderr)'),
    [
      ['Leader of test-clusterset, join config with a token to a file', 'yardctl mc init --clusterset test-clusterset --clusterid test-cluster-north --create-token -j join-config.yml'],
      ['The same, join config on stdout', 'yardctl mc init --clusterset test-clusterset --clusterid test-cluster-north --create-token > join-config.yml'],
    ],
  ).action(async (o: { clusterset?: string; clusterid?: string; namespace: string; createToken?: boolean; joinConfigFile?: string }) => {
    const clusterSet = checkName(o.clusterset, '--clusterset', 'the ClusterSet ID');
    const clusterID = checkName(o.clusterid, '--clusterid', 'the leader cluster ID');
    const ns = checkName(o.namespace, '--namespace', "the leader's namespace");
    // Progress goes where the join config does not.
    const log = (s: string): unknown => (o.joinConfigFile === undefined ? ctx.io.stderr : ctx.io.stdout).write(`${s}\n`);
    const kube = ctx.kubeWriter();
    await createAll(kube, log, 'Failed to initialize the ClusterSet', async (created) => {
      await createOnce(kube, log, created, ROLE_PATH(ns), `Role "${MEMBER_ROLE}"`, memberRole(ns));
      await createOnce(kube, log, created, collection(CLUSTERSET_KIND, ns), `ClusterSet "${clusterSet}"`, clusterSetManifest(clusterSet, ns, { clusterID, leaders: [{ clusterID }] }));
      if (o.createToken) await createMemberToken(kube, log, created, ns, DEFAULT_MEMBER_TOKEN);
    });
    log(`Successfully initialized ClusterSet ${clusterSet}`);
    const { config, token } = await joinConfigOf(kube, ns, o.createToken ? DEFAULT_MEMBER_TOKEN : undefined);
    const text = renderJoinConfig(config, token);
    if (o.joinConfigFile === undefined) ctx.io.stdout.write(text);
    else {
      writeFileDurableSync(o.joinConfigFile, text, { mode: 0o600 });
      log(`Saved ClusterSet join parameters to file: ${o.joinConfigFile}`);
    }
  });
}

type JoinFlags = Partial<Record<'configFile' | 'clusterset' | 'clusterid' | 'namespace' | 'leaderClusterid' | 'leaderNamespace' | 'leaderApiserver' | 'tokenSecretName' | 'tokenSecretFile', string>>;

function addMcJoinCommand(mc: Command, ctx: CommandContext): void {
  examples(
    mc
      .command('join')
      .description('Join a member to a ClusterSet: creates the token Secret (from the join config or --token-secret-file) and the member ClusterSet')
      .option('--config-file <file>', 'join config (the output of `mc init` or `mc get joinconfig`)')
      .option('--clusterset <id>', 'ClusterSet ID')
      .option('--clusterid <id>', 'cluster ID of this member')
      .option('-n, --namespace <ns>', `this member's Multi-cluster namespace (default ${DEFAULT_MEMBER_NAMESPACE})`)
      .option('--leader-clusterid <id>', 'cluster ID of the leader')
      .option('--leader-namespace <ns>', "the leader's Multi-cluster namespace")
      .option('--leader-apiserver <url>', "the leader's API server URL")
      .option('--token-secret-name <name>', 'use this existing token Secret in the member')
      .option('--token-secret-file <file>', 'create the token Secret from this manifest'),
    [
      ['Join with the join config of `mc init --create-token`', 'yardctl mc join --config-file join-config.yml --clusterid test-cluster-east'],
      ['Everything by flags, with a Secret created beforehand', 'yardctl mc join --clusterset test-clusterset --clusterid test-cluster-east --leader-clusterid test-cluster-north --leader-namespace antrea-multicluster --leader-apiserver https://172.18.0.1:6443 --token-secret-name member-east-token'],
    ],
  ).action(async (o: JoinFlags) => {
    const j = joinParameters(o);
    const kube = ctx.kubeWriter();
    const log = (s: string): unknown => ctx.io.stdout.write(`${s}\n`);
    await createAll(kube, log, 'Failed to join the ClusterSet', async (created) => {
      if (j.token) {
        const secret = { ...j.token, metadata: { name: j.token.metadata.name, namespace: j.ns, annotations: { [CREATED_BY_ANNOTATION]: 'true' } } };
        await createOnce(kube, log, created, `/api/v1/namespaces/${j.ns}/secrets`, `Secret "${j.token.metadata.name}"`, secret);
      }
      const leaders = [{ clusterID: j.leaderID, secret: j.secretName, server: j.server }];
      await createOnce(kube, log, created, collection(CLUSTERSET_KIND, j.ns), `ClusterSet "${j.clusterSet}"`, clusterSetManifest(j.clusterSet, j.ns, { clusterID: j.clusterID, leaders, namespace: j.leaderNs }));
    });
    log(`Successfully joined ClusterSet ${j.clusterSet} as ${j.clusterID}; \`yardctl mc get clusterset -n ${j.ns}\` shows when the leader accepts it`);
  });
}

/** What `mc join` creates, from the join config file and the flags (which take precedence over it). */
function joinParameters(o: JoinFlags): { clusterSet: string; clusterID: string; leaderID: string; leaderNs: string; ns: string; server: string; token: TokenSecret | undefined; secretName: string } {
  let file: { config: Partial<JoinConfig>; token?: TokenSecret } = { config: {} };
  if (o.configFile !== undefined) file = parseJoinConfig(readText(o.configFile, '--config-file'), o.configFile);
  const c: Partial<JoinConfig> = { ...file.config };
  const set = <K extends keyof JoinConfig>(k: K, v: string | undefined): void => {
    if (v !== undefined) c[k] = v;
  };
  set('clusterSetID', o.clusterset);
  set('clusterID', o.clusterid);
  set('namespace', o.namespace);
  set('leaderClusterID', o.leaderClusterid);
  set('leaderNamespace', o.leaderNamespace);
  set('leaderAPIServer', o.leaderApiserver);
  set('tokenSecretName', o.tokenSecretName);
  set('tokenSecretFile', o.tokenSecretFile);
  const clusterSet = checkName(c.clusterSetID, '--clusterset', 'the ClusterSet ID; or clusterSetID in the join config');
  const clusterID = checkName(c.clusterID, '--clusterid', "this member's cluster ID");
  const leaderID = checkName(c.leaderClusterID, '--leader-clusterid', 'the leader cluster ID');
  const leaderNs = checkName(c.leaderNamespace, '--leader-namespace', "the leader's namespace");
  const ns = checkName(c.namespace ?? DEFAULT_MEMBER_NAMESPACE, '--namespace', "this member's namespace");
  const server = c.leaderAPIServer;
  if (!server || !/^https?:\/\/[^/\s]+/.test(server)) throw new CliError('USAGE', `invalid --leader-apiserver ${JSON.stringify(server ?? '')}: the leader's API server URL (https://host:port) is required`, server, '--leader-apiserver');
  const token = c.tokenSecretFile !== undefined ? parseTokenSecretFile(readText(c.tokenSecretFile, '--token-secret-file'), c.tokenSecretFile) : c.tokenSecretName === undefined ? file.token : undefined;
  const secretName = c.tokenSecretName ?? token?.metadata.name;
  if (secretName === undefined) throw new CliError('USAGE', 'a token is required: --token-secret-name, --token-secret-file, or a token Secret in the join config (mc init --create-token)', undefined, '--token-secret-name');
  return { clusterSet, clusterID, leaderID, leaderNs, ns, server, token, secretName };
}

function addMcLeaveCommand(mc: Command, ctx: CommandContext): void {
  examples(
    mc
      .command('leave')
      .description('Leave a ClusterSet: deletes the member ClusterSet and the token Secret `mc join` created (the member controller then removes its exports and imports)')
      .option('--clusterset <id>', 'ClusterSet ID')
      .option('-n, --namespace <ns>', "this member's Multi-cluster namespace", DEFAULT_MEMBER_NAMESPACE),
    [['Leave test-clusterset', 'yardctl mc leave --clusterset test-clusterset']],
  ).action(async (o: { clusterset?: string; namespace: string }) => {
    const clusterSet = checkName(o.clusterset, '--clusterset', 'the ClusterSet ID');
    const ns = checkName(o.namespace, '--namespace', "this member's namespace");
    const kube = ctx.kubeWriter();
    const path = `${collection(CLUSTERSET_KIND, ns)}/${clusterSet}`;
    const cs = await kube.request<ClusterSetItem & { spec?: { leaders?: { secret?: string }[] } }>('GET', path).catch((e: unknown) => {
      throw clusterSetError(e, clusterSet, ns);
    });
    if (!cs.spec?.leaders?.[0]?.server) throw new CliError('USAGE', `ClusterSet "${clusterSet}" in namespace ${ns} is a leader's ClusterSet; use \`yardctl mc destroy\``, clusterSet, '--clusterset');
    await kube.request('DELETE', path);
    ctx.io.stdout.write(`ClusterSet "${clusterSet}" deleted in namespace ${ns}\n`);
    const secret = cs.spec.leaders[0].secret;
    if (secret) await deleteIfCreatedByUs(kube, (s) => ctx.io.stdout.write(`${s}\n`), `/api/v1/namespaces/${ns}/secrets/${secret}`, `Secret "${secret}"`);
  });
}

function addMcDestroyCommand(mc: Command, ctx: CommandContext): void {
  examples(
    mc
      .command('destroy')
      .description('Destroy a ClusterSet in the leader: deletes its ClusterSet and what `mc init` created (member token, member Role)')
      .option('--clusterset <id>', 'ClusterSet ID')
      .option('-n, --namespace <ns>', "the leader's Multi-cluster namespace", DEFAULT_LEADER_NAMESPACE),
    [['Destroy test-clusterset', 'yardctl mc destroy --clusterset test-clusterset']],
  ).action(async (o: { clusterset?: string; namespace: string }) => {
    const clusterSet = checkName(o.clusterset, '--clusterset', 'the ClusterSet ID');
    const ns = checkName(o.namespace, '--namespace', "the leader's namespace");
    const kube = ctx.kubeWriter();
    const log = (s: string): unknown => ctx.io.stdout.write(`${s}\n`);
    try {
      await kube.request('DELETE', `${collection(CLUSTERSET_KIND, ns)}/${clusterSet}`);
    } catch (e) {
      throw clusterSetError(e, clusterSet, ns);
    }
    log(`ClusterSet "${clusterSet}" deleted in namespace ${ns}`);
    await deleteIfCreatedByUs(kube, log, `/api/v1/namespaces/${ns}/secrets/${DEFAULT_MEMBER_TOKEN}`, `Secret "${DEFAULT_MEMBER_TOKEN}"`);
    await deleteIfCreatedByUs(kube, log, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/${DEFAULT_MEMBER_TOKEN}`, `RoleBinding "${DEFAULT_MEMBER_TOKEN}"`);
    await deleteIfCreatedByUs(kube, log, `/api/v1/namespaces/${ns}/serviceaccounts/${DEFAULT_MEMBER_TOKEN}`, `ServiceAccount "${DEFAULT_MEMBER_TOKEN}"`);
    await deleteIfCreatedByUs(kube, log, `${ROLE_PATH(ns)}/${MEMBER_ROLE}`, `Role "${MEMBER_ROLE}"`);
  });
}

/** A 404 of the ClusterSet as kubectl words it; any other error as it is. */
function clusterSetError(e: unknown, clusterSet: string, ns: string): unknown {
  if (isStatus(e, 404)) return new CliError('NOT_FOUND', `Error from server (NotFound): ClusterSet "${clusterSet}" not found in namespace ${ns}`, clusterSet, '--clusterset');
  return e;
}

function clusterSetManifest(name: string, ns: string, spec: Record<string, unknown>): Manifest {
  return { apiVersion: 'multicluster.crd.antrea.io/v1alpha2', kind: 'ClusterSet', metadata: { name, namespace: ns }, spec };
}

/** Runs `create` (which reports each object it made); when it fails, deletes those objects, newest first, and rethrows. */
async function createAll(kube: KubeWriter, log: (s: string) => unknown, failure: string, create: (created: (path: string) => void) => Promise<void>): Promise<void> {
  const created: string[] = [];
  try {
    await create((path) => void created.push(path));
  } catch (e) {
    log(`${failure}; deleting the objects created`);
    for (const p of created.reverse()) await deleteQuietly(kube, p);
    throw e;
  }
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError('USAGE', `cannot read ${flag} ${file}: ${(e as Error).message}`, file, flag);
  }
}

/** The join config of the leader ClusterSet in `ns`, with a member token Secret when asked. */
async function joinConfigOf(kube: KubeWriter, ns: string, memberToken: string | undefined): Promise<{ config: JoinConfig; token?: TokenSecret }> {
  const list = await kube.request<{ items: ClusterSetItem[] }>('GET', collection(CLUSTERSET_KIND, ns));
  const leader = list.items.filter((cs) => !cs.spec?.leaders?.[0]?.server).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
  if (!leader) throw new CliError('NOT_FOUND', `no leader ClusterSet in namespace ${ns} (yardctl mc init creates one)`, ns, '--namespace');
  const config: JoinConfig = { clusterSetID: leader.metadata.name ?? '', leaderClusterID: leader.spec?.clusterID ?? '', leaderNamespace: ns, leaderAPIServer: kube.server };
  if (memberToken === undefined) return { config };
  const secret = await kube.request<{ metadata?: { name?: string }; data?: Record<string, string> }>('GET', `/api/v1/namespaces/${ns}/secrets/${memberToken}`);
  if (!secret.data?.['token']) throw new CliError('NOT_FOUND', `member token Secret ${ns}/${memberToken} has no data.token yet`, memberToken, '--member-token');
  return { config, token: memberTokenSecret(secret) };
}

/** POST; an existing object is reported and kept (and not rolled back). */
async function createOnce(kube: KubeWriter, log: (s: string) => unknown, created: (path: string) => void, path: string, what: string, obj: Manifest): Promise<void> {
  try {
    await kube.request('POST', path, obj);
  } catch (e) {
    if (!isStatus(e, 409)) throw e;
    log(`${what} already exists`);
    return;
  }
  created(`${path}/${obj.metadata.name}`);
  log(`${what} created`);
}

async function deleteQuietly(kube: KubeWriter, path: string): Promise<void> {
  try {
    await kube.request('DELETE', path);
  } catch {
    // best effort: the failure that started the rollback is the one reported
  }
}

/** Deletes an object only when `mc init`/`mc join` made it (the created-by annotation). */
async function deleteIfCreatedByUs(kube: KubeWriter, log: (s: string) => unknown, path: string, what: string): Promise<void> {
  let obj: { metadata?: { annotations?: Record<string, string> } };
  try {
    obj = await kube.request('GET', path);
  } catch (e) {
    if (isStatus(e, 404)) return;
    throw e;
  }
  if (obj.metadata?.annotations?.[CREATED_BY_ANNOTATION] !== 'true') {
    log(`${what} was not created by yardctl; kept`);
    return;
  }
  await kube.request('DELETE', path);
  log(`${what} deleted`);
}

/** The Role members are bound to: the seed guide's antrea-mc-member-cluster-role. */
function memberRole(ns: string): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: MEMBER_ROLE, namespace: ns, annotations: { [CREATED_BY_ANNOTATION]: 'true' } },
    rules: [
      { apiGroups: ['multicluster.crd.antrea.io'], resources: ['memberclusterannounces', 'resourceexports'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: ['multicluster.crd.antrea.io'], resources: ['resourceimports', 'resourceexports/status'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ],
  };
}

/** ServiceAccount, RoleBinding to the member Role, and a service-account-token Secret; waits for the token. */
async function createMemberToken(kube: KubeWriter, log: (s: string) => unknown, created: (path: string) => void, ns: string, name: string): Promise<void> {
  const annotations = { [CREATED_BY_ANNOTATION]: 'true' };
  await createOnce(kube, log, created, `/api/v1/namespaces/${ns}/serviceaccounts`, `ServiceAccount "${name}"`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, annotations } });
  await createOnce(kube, log, created, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, `RoleBinding "${name}"`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: ns, annotations },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_ROLE },
    subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
  });
  await createOnce(kube, log, created, `/api/v1/namespaces/${ns}/secrets`, `Secret "${name}"`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns, annotations: { ...annotations, 'kubernetes.io/service-account.name': name } },
    type: 'kubernetes.io/service-account-token',
  });
  // The token controller fills data.token shortly after the create; the request timeout bounds the wait.
  for (let i = 0; i < 50; i++) {
    const s = await kube.request<{ data?: Record<string, string> }>('GET', `/api/v1/namespaces/${ns}/secrets/${name}`);
    if (s.data?.['token']) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new CliError('SERVER', `token Secret ${ns}/${name} got no data.token within 5s (is the token controller running?)`, name, 'Secret');
}
