// Authentication (static bearer tokens + ServiceAccount tokens) and RBAC authorization.

import { createHmac, randomBytes } from 'node:crypto';
import type { KubeApi } from './api';
import type { KubeObject, UserInfo } from './types';
import { isRecord } from './types';

export type { UserInfo } from './types';

/** The attributes RBAC decides on, as kube-apiserver's RequestInfo. */
export interface RequestAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

interface SaTokenRef {
  namespace: string;
  serviceAccount: string;
  secretName?: string;
  expires?: number;
}

export const masters = 'system:masters';

/** Parse kube-apiserver's static token file: `token,user,uid[,"group1,group2"]` per line. */
export function parseTokenFile(text: string): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '' || l.startsWith('#')) continue;
    const cols: string[] = [];
    let cur = '';
    let quoted = false;
    for (const ch of l) {
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        cols.push(cur);
        cur = '';
      } else cur += ch;
    }
    cols.push(cur);
    const [token, username, uid, groups] = cols;
    if (!token || !username) continue;
    const u: UserInfo = { username, groups: (groups ?? '').split(',').filter((g) => g !== '') };
    if (uid) u.uid = uid;
    out.set(token, u);
  }
  return out;
}

export class Authenticator {
  private readonly saTokens = new Map<string, SaTokenRef>();
  private readonly signingKey = randomBytes(32);

  constructor(
    private readonly api: KubeApi,
    readonly staticTokens: Map<string, UserInfo>,
  ) {
    const secrets = api.type('', 'secrets');
    for (const s of api.list(secrets, undefined).items) this.indexSecret(s);
    api.store.subscribe((e) => {
      if (e.gr !== '/secrets') return;
      if (e.prev) this.unindexSecret(e.prev);
      if (e.type !== 'DELETED') this.indexSecret(e.obj);
    });
  }

  private tokenOf(secret: KubeObject): string | undefined {
    if (secret.type !== 'kubernetes.io/service-account-token') return undefined;
    const data = secret.data as Record<string, string> | undefined;
    return data?.token ? Buffer.from(data.token, 'base64').toString('utf8') : undefined;
  }

  private indexSecret(secret: KubeObject): void {
    const t = this.tokenOf(secret);
    const sa = secret.metadata.annotations?.['kubernetes.io/service-account.name'];
    if (t && sa) this.saTokens.set(t, { namespace: secret.metadata.namespace ?? '', serviceAccount: sa, secretName: secret.metadata.name ?? '' });
  }

  private unindexSecret(secret: KubeObject): void {
    const t = this.tokenOf(secret);
    if (t) this.saTokens.delete(t);
  }

  /** A JWT-shaped ServiceAccount token (signed, but validated by lookup like legacy tokens). */
  mintServiceAccountToken(namespace: string, serviceAccount: string, uid: string, secretName?: string, expirationSeconds?: number): string {
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims: Record<string, unknown> = {
      iss: 'kubernetes/serviceaccount',
      sub: `system:serviceaccount:${namespace}:${serviceAccount}`,
      'kubernetes.io/serviceaccount/namespace': namespace,
      'kubernetes.io/serviceaccount/service-account.name': serviceAccount,
      'kubernetes.io/serviceaccount/service-account.uid': uid,
      jti: randomBytes(8).toString('hex'),
    };
    if (secretName) claims['kubernetes.io/serviceaccount/secret.name'] = secretName;
    const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const sig = createHmac('sha256', this.signingKey).update(body).digest('base64url');
    const token = `${body}.${sig}`;
    if (!secretName) {
      const ref: SaTokenRef = { namespace, serviceAccount };
      if (expirationSeconds !== undefined) ref.expires = this.api.clock.now() + expirationSeconds * 1000;
      this.saTokens.set(token, ref);
    }
    return token;
  }

  /** Who a bearer token belongs to, or undefined when it is not valid. */
  authenticate(token: string): UserInfo | undefined {
    const st = this.staticTokens.get(token);
    if (st) return { ...st, groups: [...new Set([...st.groups, 'system:authenticated'])] };
    const ref = this.saTokens.get(token);
    if (!ref) return undefined;
    if (ref.expires !== undefined && ref.expires < this.api.clock.now()) return undefined;
    const sa = this.api.tryGet(this.api.type('', 'serviceaccounts'), ref.namespace, ref.serviceAccount);
    if (!sa) return undefined;
    if (ref.secretName && !this.api.tryGet(this.api.type('', 'secrets'), ref.namespace, ref.secretName)) return undefined;
    const user: UserInfo = {
      username: `system:serviceaccount:${ref.namespace}:${ref.serviceAccount}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ref.namespace}`, 'system:authenticated'],
    };
    if (sa.metadata.uid) user.uid = sa.metadata.uid;
    return user;
  }
}

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

function has(list: string[] | undefined, v: string): boolean {
  return (list ?? []).some((x) => x === '*' || x === v);
}

function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) {
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resOk = (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (a.subresource !== '' && (r === `${a.resource}/*` || r === `*/${a.subresource}`)),
  );
  if (!resOk) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== '' && names.includes(a.name));
}

function subjectMatches(s: Subject, user: UserInfo, bindingNs: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.username;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount':
      return user.username === `system:serviceaccount:${s.namespace ?? bindingNs}:${s.name}`;
    default:
      return false;
  }
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

/** RBAC as kube-apiserver evaluates it: union of bindings, no deny rules; system:masters bypasses. */
export class RbacAuthorizer {
  constructor(private readonly api: KubeApi) {}

  private rulesOfClusterRole(name: string, seen = new Set<string>()): PolicyRule[] {
    if (seen.has(name)) return [];
    seen.add(name);
    const crType = this.api.type('rbac.authorization.k8s.io', 'clusterroles');
    const cr = this.api.tryGet(crType, undefined, name);
    if (!cr) return [];
    const rules = [...((cr.rules as PolicyRule[] | undefined) ?? [])];
    // Aggregated ClusterRoles collect the rules of ClusterRoles their selectors pick.
    const agg = cr.aggregationRule as { clusterRoleSelectors?: { matchLabels?: Record<string, string> }[] } | undefined;
    for (const sel of agg?.clusterRoleSelectors ?? []) {
      for (const other of this.api.list(crType, undefined).items) {
        const labels = other.metadata.labels ?? {};
        if (Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels[k] === v)) rules.push(...this.rulesOfClusterRole(other.metadata.name as string, seen));
      }
    }
    return rules;
  }

  private roleRules(ref: { kind?: string; name?: string } | undefined, ns: string): PolicyRule[] {
    if (!ref?.name) return [];
    if (ref.kind === 'ClusterRole') return this.rulesOfClusterRole(ref.name);
    const r = this.api.tryGet(this.api.type('rbac.authorization.k8s.io', 'roles'), ns, ref.name);
    return (r?.rules as PolicyRule[] | undefined) ?? [];
  }

  /** Every rule that applies to `user` in `namespace` (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const rules: PolicyRule[] = [];
    const crb = this.api.type('rbac.authorization.k8s.io', 'clusterrolebindings');
    for (const b of this.api.list(crb, undefined).items) {
      if (((b.subjects as Subject[] | undefined) ?? []).some((s) => subjectMatches(s, user, ''))) {
        rules.push(...this.rulesOfClusterRole((b.roleRef as { name?: string } | undefined)?.name ?? ''));
      }
    }
    const rb = this.api.type('rbac.authorization.k8s.io', 'rolebindings');
    for (const b of namespace === '' ? [] : this.api.list(rb, namespace).items) {
      if (((b.subjects as Subject[] | undefined) ?? []).some((s) => subjectMatches(s, user, namespace))) {
        rules.push(...this.roleRules(b.roleRef as { kind?: string; name?: string } | undefined, namespace));
      }
    }
    return rules;
  }

  authorize(a: RequestAttributes): Decision {
    if (a.user.groups.includes(masters)) return { allowed: true, reason: '' };
    const crb = this.api.type('rbac.authorization.k8s.io', 'clusterrolebindings');
    for (const b of this.api.list(crb, undefined).items) {
      const subjects = (b.subjects as Subject[] | undefined) ?? [];
      if (!subjects.some((s) => subjectMatches(s, a.user, ''))) continue;
      const ref = b.roleRef as { kind?: string; name?: string } | undefined;
      if (this.rulesOfClusterRole(ref?.name ?? '').some((r) => ruleAllows(r, a))) {
        return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${b.metadata.name ?? ''}" of ClusterRole "${ref?.name ?? ''}" to ${describe(a.user)}` };
      }
    }
    if (a.namespace !== '' && a.isResourceRequest) {
      const rb = this.api.type('rbac.authorization.k8s.io', 'rolebindings');
      for (const b of this.api.list(rb, a.namespace).items) {
        const subjects = (b.subjects as Subject[] | undefined) ?? [];
        if (!subjects.some((s) => subjectMatches(s, a.user, a.namespace))) continue;
        const ref = b.roleRef as { kind?: string; name?: string } | undefined;
        if (this.roleRules(ref, a.namespace).some((r) => ruleAllows(r, a))) {
          return { allowed: true, reason: `RBAC: allowed by RoleBinding "${b.metadata.name ?? ''}/${a.namespace}" of ${ref?.kind ?? 'Role'} "${ref?.name ?? ''}" to ${describe(a.user)}` };
        }
      }
    }
    return { allowed: false, reason: '' };
  }
}

function describe(u: UserInfo): string {
  const m = /^system:serviceaccount:([^:]+):(.+)$/.exec(u.username);
  return m ? `ServiceAccount "${m[2]}/${m[1]}"` : `User "${u.username}"`;
}

/** The 403 message kube-apiserver gives for a denied request. */
export function forbiddenMessage(a: RequestAttributes): string {
  if (!a.isResourceRequest) return `forbidden: User "${a.user.username}" cannot ${a.verb} path "${a.path}"`;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  // The Status names the resource without its subresource (kube-apiserver's NewForbidden of the GroupResource).
  const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
  const target = a.name !== '' ? `${qualified} "${a.name}"` : qualified;
  const scope = a.namespace !== '' ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${target} is forbidden: User "${a.user.username}" cannot ${a.verb} resource "${res}" in API group "${a.apiGroup}" ${scope}`;
}

/** Answer a SubjectAccessReview spec (resourceAttributes or nonResourceAttributes). */
export function reviewAccess(authz: RbacAuthorizer, spec: Record<string, unknown>, user: UserInfo): { allowed: boolean; reason?: string } {
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  let a: RequestAttributes;
  if (isRecord(ra)) {
    a = {
      user,
      verb: String(ra.verb ?? ''),
      isResourceRequest: true,
      path: '',
      apiGroup: String(ra.group ?? ''),
      resource: String(ra.resource ?? ''),
      subresource: String(ra.subresource ?? ''),
      namespace: String(ra.namespace ?? ''),
      name: String(ra.name ?? ''),
    };
  } else if (isRecord(nra)) {
    a = { user, verb: String(nra.verb ?? ''), isResourceRequest: false, path: String(nra.path ?? ''), apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  } else {
    return { allowed: false, reason: 'neither resourceAttributes nor nonResourceAttributes given' };
  }
  const d = authz.authorize(a);
  return d.reason === '' ? { allowed: d.allowed } : { allowed: d.allowed, reason: d.reason };
}
