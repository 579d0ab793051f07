// The ClusterSet join config of `yardctl mc init|join|get joinconfig`: antctl's ClusterSetJoinConfig
// file (a YAML document, optionally followed by the member token Secret manifest), rendered and parsed.
import YAML from 'yaml';
import { CliError } from './errors';

export const JOIN_CONFIG_API_VERSION = 'multicluster.antrea.io/v1alpha1';
export const JOIN_CONFIG_KIND = 'ClusterSetJoinConfig';
/** Annotation on everything `mc init` / `mc join` create, so `leave` / `destroy` delete only those. */
export const CREATED_BY_ANNOTATION = 'multicluster.antrea.io/created-by-antctl';
export const DEFAULT_LEADER_NAMESPACE = 'antrea-multicluster';
export const DEFAULT_MEMBER_NAMESPACE = 'kube-system';
/** Name of the ServiceAccount, token Secret and RoleBinding `mc init --create-token` makes. */
export const DEFAULT_MEMBER_TOKEN = 'default-member-token';
/** The Role members are bound to in the leader's namespace (the guide's name). */
export const MEMBER_ROLE = 'antrea-mc-member-cluster-role';

/** What a member needs to join a ClusterSet (antctl's ClusterSetJoinConfig fields). */
export interface JoinConfig {
  clusterSetID: string;
  leaderClusterID: string;
  leaderNamespace: string;
  leaderAPIServer: string;
  /** The joining member's cluster ID (usually given with `--clusterid`). */
  clusterID?: string;
  /** The member's Multi-cluster Namespace (default kube-system). */
  namespace?: string;
  /** An existing token Secret in the member to use. */
  tokenSecretName?: string;
  /** A file with a token Secret manifest to create in the member. */
  tokenSecretFile?: string;
}

/** A member token Secret as carried in a join config: name, base64 data, type Opaque. */
export interface TokenSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string };
  type: 'Opaque';
  data: Record<string, string>;
}

/** The token Secret manifest for a member, from the leader's service-account-token Secret. */
export function memberTokenSecret(secret: { metadata?: { name?: string }; data?: Record<string, string> }): TokenSecret {
  const data: Record<string, string> = {};
  for (const k of ['ca.crt', 'token']) if (secret.data?.[k] !== undefined) data[k] = secret.data[k];
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret.metadata?.name ?? '' }, type: 'Opaque', data };
}

/**
 * The join config file: the config document, the optional fields commented out (so `join` flags
 * fill them), then the token Secret manifest when there is one.
 */
export function renderJoinConfig(c: JoinConfig, token?: TokenSecret): string {
  const doc: Record<string, string> = { apiVersion: JOIN_CONFIG_API_VERSION, kind: JOIN_CONFIG_KIND, clusterSetID: c.clusterSetID };
  if (c.clusterID) doc['clusterID'] = c.clusterID;
  if (c.namespace) doc['namespace'] = c.namespace;
  Object.assign(doc, { leaderClusterID: c.leaderClusterID, leaderNamespace: c.leaderNamespace, leaderAPIServer: c.leaderAPIServer });
  if (c.tokenSecretName) doc['tokenSecretName'] = c.tokenSecretName;
  if (c.tokenSecretFile) doc['tokenSecretFile'] = c.tokenSecretFile;
  const optional = [
    c.clusterID ? undefined : '#clusterID: ""',
    c.namespace ? undefined : '#namespace: ""',
    '# Use the pre-created token Secret.',
    c.tokenSecretName ? undefined : '#tokenSecretName: ""',
    '# Create a token Secret with the manifest file.',
    c.tokenSecretFile ? undefined : '#tokenSecretFile: ""',
  ].filter((l): l is string => l !== undefined);
  let out = `---\n${YAML.stringify(doc)}${optional.join('\n')}\n`;
  if (token) out += `# Manifest to create a Secret for an Antrea Multi-cluster member token.\n---\n${YAML.stringify(token)}`;
  return out;
}

const STRING_FIELDS = ['clusterSetID', 'clusterID', 'namespace', 'leaderClusterID', 'leaderNamespace', 'leaderAPIServer', 'tokenSecretName', 'tokenSecretFile'] as const;

/** Parses a join config file (`source` names it in errors); returns the config and the token Secret it carries. */
export function parseJoinConfig(text: string, source: string): { config: Partial<JoinConfig>; token?: TokenSecret } {
  let docs: unknown[];
  try {
    docs = YAML.parseAllDocuments(text).map((d) => {
      if (d.errors.length > 0) throw d.errors[0] as Error;
      return d.toJSON() as unknown;
    });
  } catch (e) {
    throw new CliError('USAGE', `invalid join config ${source}: ${(e as Error).message}`, source, '--config-file');
  }
  docs = docs.filter((d) => d !== null && d !== undefined);
  const isObj = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d);
  const cfg = docs.find((d) => isObj(d) && d['kind'] === JOIN_CONFIG_KIND);
  if (!isObj(cfg)) throw new CliError('USAGE', `invalid join config ${source}: no document of kind ${JOIN_CONFIG_KIND}`, source, '--config-file');
  if (cfg['apiVersion'] !== JOIN_CONFIG_API_VERSION) throw new CliError('USAGE', `invalid join config ${source}: apiVersion must be ${JOIN_CONFIG_API_VERSION}, got ${JSON.stringify(cfg['apiVersion'])}`, cfg['apiVersion'], `${source}: apiVersion`);
  const config: Partial<JoinConfig> = {};
  for (const f of STRING_FIELDS) {
    const v = cfg[f];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new CliError('USAGE', `invalid join config ${source}: ${f} must be a string, got ${JSON.stringify(v)}`, v, `${source}: ${f}`);
    config[f] = v;
  }
  const secret = docs.find((d) => isObj(d) && d['kind'] === 'Secret');
  if (!isObj(secret)) return { config };
  return { config, token: tokenSecretOf(secret, source) };
}

/** A token Secret manifest (from a join config or `--token-secret-file`), checked. */
export function tokenSecretOf(doc: unknown, source: string): TokenSecret {
  const s = (typeof doc === 'object' && doc !== null ? doc : {}) as { metadata?: { name?: unknown }; data?: unknown };
  const name = s.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new CliError('USAGE', `invalid token Secret in ${source}: metadata.name is required, got ${JSON.stringify(name)}`, name, `${source}: metadata.name`);
  const data = (typeof s.data === 'object' && s.data !== null ? s.data : {}) as Record<string, unknown>;
  if (typeof data['token'] !== 'string' || data['token'] === '') throw new CliError('USAGE', `invalid token Secret ${name} in ${source}: data.token is required`, data['token'], `${source}: data.token`);
  const out: Record<string, string> = { token: data['token'] };
  if (typeof data['ca.crt'] === 'string') out['ca.crt'] = data['ca.crt'];
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: out };
}

/** Parses a `--token-secret-file` (a Secret manifest, YAML or JSON). */
export function parseTokenSecretFile(text: string, source: string): TokenSecret {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw new CliError('USAGE', `invalid token Secret file ${source}: ${(e as Error).message}`, source, '--token-secret-file');
  }
  return tokenSecretOf(doc, source);
}
