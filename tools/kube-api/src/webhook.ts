// Validating admission webhooks (admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration):
// which webhooks a request matches, and the AdmissionReview v1 call to each over HTTPS.

import { randomUUID } from 'node:crypto';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AdmissionRequest, KubeApi, Operation } from './api';
import type { UserInfo } from './auth';
import { type FieldError, invalid, KubeApiError } from './errors';
import { serviceEndpoint } from './proxy';
import type { ResourceType } from './registry';
import { type LabelRequirement, matchLabels } from './selectors';
import type { Clock, KubeObject, Logger } from './types';
import { isRecord } from './types';

/** One `webhooks[]` entry of a ValidatingWebhookConfiguration, as far as this server reads it. */
export interface ValidatingWebhook {
  name: string;
  clientConfig: { url?: string; service?: { namespace: string; name: string; path?: string; port?: number }; caBundle?: string };
  rules?: { apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; operations?: string[]; scope?: string }[];
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
}

interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** The request as the webhooks see it. */
export interface WebhookRequest {
  op: Operation;
  rt: ResourceType;
  /** Version the client used (the review's kind and resource carry it). */
  version: string;
  subresource?: string;
  name: string;
  namespace?: string;
  /** The object after defaulting and built-in validation (absent on delete). */
  obj?: KubeObject;
  /** The stored object (update and delete). */
  old?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
}

/** A write about to run, as {@link ValidatingWebhooks.guard} takes it. */
export interface WriteUnderReview {
  op: Operation;
  rt: ResourceType;
  version: string;
  subresource?: string;
  /** Name in the URL ('' for a create by POST). */
  name: string;
  namespace?: string;
  user: UserInfo;
  dryRun: boolean;
  /** Webhooks' warnings are appended here. */
  warnings: string[];
}

/** Where and how one AdmissionReview is sent. */
export interface WebhookTarget {
  host: string;
  port: number;
  path: string;
  /** PEM bundle verifying the webhook's certificate; the system roots when absent. */
  ca?: string;
  /** TLS server name (the Service's DNS name, or the URL's host). */
  servername: string;
}

/** What a webhook answered. */
export interface WebhookVerdict {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string };
  warnings?: string[];
}

/** Posts an AdmissionReview; resolves with the parsed response body. Tests may replace it. */
export type ReviewTransport = (target: WebhookTarget, review: Record<string, unknown>, timeoutMs: number, clock: Clock) => Promise<unknown>;

const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_TIMEOUT_SECONDS = 30;

function toRequirements(sel: LabelSelectorSpec | undefined): LabelRequirement[] | undefined {
  if (!sel) return undefined;
  const reqs: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key, op: 'in', values: [value] });
  for (const e of sel.matchExpressions ?? []) {
    if (e.operator === 'In' || e.operator === 'NotIn') reqs.push({ key: e.key, op: e.operator === 'In' ? 'in' : 'notin', values: e.values ?? [] });
    else reqs.push({ key: e.key, op: e.operator === 'Exists' ? 'exists' : '!' });
  }
  return reqs;
}

function listMatches(list: string[] | undefined, value: string): boolean {
  return (list ?? []).some((x) => x === '*' || x === value);
}

/** Whether `rules` select the request (group, version, resource[/subresource], operation, scope). */
export function rulesMatch(w: ValidatingWebhook, req: Pick<WebhookRequest, 'op' | 'rt' | 'version' | 'subresource'>): boolean {
  const op = req.op.toUpperCase();
  const res = req.subresource ? `${req.rt.resource}/${req.subresource}` : req.rt.resource;
  return (w.rules ?? []).some((r) => {
    if (!listMatches(r.apiGroups, req.rt.group) || !listMatches(r.apiVersions, req.version)) return false;
    if (!(r.operations ?? []).some((o) => o === '*' || o === op)) return false;
    const scope = r.scope ?? '*';
    if (scope === 'Cluster' && req.rt.namespaced) return false;
    if (scope === 'Namespaced' && !req.rt.namespaced) return false;
    return (r.resources ?? []).some((x) => {
      if (x === '*/*') return true;
      if (x === '*') return req.subresource === undefined;
      if (x.endsWith('/*')) return x.slice(0, -2) === req.rt.resource && req.subresource !== undefined;
      if (x.startsWith('*/')) return req.subresource === x.slice(2);
      return x === res;
    });
  });
}

/** Encode an AdmissionReview v1 request for `req`. */
export function admissionReview(uid: string, req: WebhookRequest): Record<string, unknown> {
  const kind = { group: req.rt.group, version: req.version, kind: req.rt.kind };
  const resource = { group: req.rt.group, version: req.version, resource: req.rt.resource };
  const userInfo: Record<string, unknown> = { username: req.user.username, groups: req.user.groups };
  if (req.user.uid) userInfo.uid = req.user.uid;
  const request: Record<string, unknown> = {
    uid,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: req.name,
    operation: req.op.toUpperCase(),
    userInfo,
    object: req.obj ?? null,
    oldObject: req.old ?? null,
    dryRun: req.dryRun,
    options: { apiVersion: 'meta.k8s.io/v1', kind: req.op === 'create' ? 'CreateOptions' : req.op === 'update' ? 'UpdateOptions' : 'DeleteOptions' },
  };
  if (req.subresource) request.subResource = req.subresource;
  if (req.namespace) request.namespace = req.namespace;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/**
 * HTTPS POST of the review, aborted after `timeoutMs` on the injected clock. `agent` keeps
 * connections to a webhook open between reviews (a TLS handshake per review doubled a create's
 * latency, see docs/kube-api.md).
 */
export const httpsTransport = (target: WebhookTarget, review: Record<string, unknown>, timeoutMs: number, clock: Clock, agent?: https.Agent): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(review);
    const options: https.RequestOptions = {
      host: target.host,
      port: target.port,
      path: target.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
    };
    if (agent) options.agent = agent;
    if (target.ca) options.ca = target.ca;
    // SNI carries DNS names only; an IP is verified against the certificate's IP SANs.
    if (isIP(target.servername) === 0) options.servername = target.servername;
    let done = false;
    const finish = (err: Error | undefined, value?: unknown): void => {
      if (done) return;
      done = true;
      timer.cancel();
      if (err) reject(err);
      else resolve(value);
    };
    const out = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => finish(e));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return finish(new Error(`the server responded with status ${res.statusCode ?? 0}: ${text.slice(0, 200)}`));
        try {
          finish(undefined, JSON.parse(text) as unknown);
        } catch (e) {
          finish(new Error(`cannot decode the response: ${(e as Error).message}`));
        }
      });
    });
    const timer = clock.setTimeout(() => {
      finish(new Error(`context deadline exceeded (timeout ${timeoutMs / 1000}s)`));
      out.destroy();
    }, timeoutMs);
    out.on('error', (e) => finish(e));
    out.end(body);
  });

/** Options of {@link ValidatingWebhooks}. */
export interface ValidatingWebhooksOptions {
  api: KubeApi;
  clock: Clock;
  logger: Logger;
  transport?: ReviewTransport;
}

/**
 * Runs the validating webhooks that match a request, all of them, in parallel as
 * kube-apiserver does; the first denial or failure (failurePolicy Fail) refuses the request.
 */
export class ValidatingWebhooks {
  private readonly transport: ReviewTransport;
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly o: ValidatingWebhooksOptions) {
    this.transport = o.transport ?? ((t, r, ms, clock) => httpsTransport(t, r, ms, clock, this.agent));
  }

  /** Close kept-alive connections to webhooks (server stop). */
  close(): void {
    this.agent.destroy();
  }

  /**
   * Run `write` behind the webhooks: a dry run gives the object as it would be stored
   * (defaulted, checked by the built-in validation), the webhooks review it, then the write runs
   * for real. When no webhook's rules select the request, the write runs once, as before.
   */
  async guard(w: WriteUnderReview, write: (dryRun: boolean) => KubeObject): Promise<KubeObject> {
    const sub = w.subresource === undefined ? {} : { subresource: w.subresource };
    if (!this.configured((h) => rulesMatch(h, { op: w.op, rt: w.rt, version: w.version, ...sub }))) return write(false);
    const old = w.op === 'create' ? undefined : this.o.api.tryGet(w.rt, w.namespace, w.name);
    const probe = write(true);
    const req: WebhookRequest = { op: w.op, rt: w.rt, version: w.version, name: probe.metadata.name ?? w.name, user: w.user, dryRun: w.dryRun, ...sub };
    const ns = w.rt.namespaced ? (probe.metadata.namespace ?? w.namespace) : undefined;
    if (ns !== undefined) req.namespace = ns;
    if (w.op !== 'delete') req.obj = this.o.api.present(w.rt, probe, w.version);
    if (old) req.old = this.o.api.present(w.rt, old, w.version);
    w.warnings.push(...(await this.admit(req)));
    return w.dryRun ? probe : write(false);
  }

  private configured(selects: (h: ValidatingWebhook) => boolean): boolean {
    const t = this.o.api.registry.get('admissionregistration.k8s.io', 'validatingwebhookconfigurations');
    if (!t) return false;
    return this.o.api.list(t, undefined).items.some((c) => Array.isArray(c.webhooks) && (c.webhooks as unknown[]).some((h) => isRecord(h) && selects(h as unknown as ValidatingWebhook)));
  }

  /** Webhooks of every configuration that select this request. */
  matching(req: WebhookRequest): ValidatingWebhook[] {
    const t = this.o.api.registry.get('admissionregistration.k8s.io', 'validatingwebhookconfigurations');
    if (!t) return [];
    const out: ValidatingWebhook[] = [];
    for (const cfg of this.o.api.list(t, undefined).items) {
      const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as ValidatingWebhook[]) : [];
      for (const w of hooks) if (isRecord(w) && rulesMatch(w, req) && this.selectorsMatch(w, req)) out.push(w);
    }
    return out;
  }

  private selectorsMatch(w: ValidatingWebhook, req: WebhookRequest): boolean {
    const objSel = toRequirements(w.objectSelector);
    if (objSel && objSel.length > 0) {
      const labelsOf = (o: KubeObject | undefined): Record<string, string> | undefined => o?.metadata.labels;
      if (!matchLabels(objSel, labelsOf(req.obj)) && !matchLabels(objSel, labelsOf(req.old))) return false;
    }
    const nsSel = toRequirements(w.namespaceSelector);
    if (nsSel && nsSel.length > 0) {
      let labels: Record<string, string> | undefined;
      if (req.rt.group === '' && req.rt.resource === 'namespaces') labels = (req.obj ?? req.old)?.metadata.labels;
      else if (!req.rt.namespaced) return true;
      else labels = this.o.api.tryGet(this.o.api.type('', 'namespaces'), undefined, req.namespace ?? '')?.metadata.labels;
      if (!matchLabels(nsSel, labels ?? {})) return false;
    }
    return true;
  }

  /** Resolve a webhook's clientConfig to an address (a Service goes to one of its endpoints). */
  target(w: ValidatingWebhook): WebhookTarget {
    const cc = w.clientConfig ?? {};
    const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
    if (cc.service) {
      const s = cc.service;
      const ep = serviceEndpoint(this.o.api, s.namespace, s.name, s.port ?? 443);
      const t: WebhookTarget = { host: ep.host, port: ep.port, path: s.path ?? '/', servername: `${s.name}.${s.namespace}.svc` };
      if (ca) t.ca = ca;
      return t;
    }
    if (cc.url) {
      const u = new URL(cc.url);
      if (u.protocol !== 'https:') throw new Error(`clientConfig.url ${cc.url}: only https is supported`);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      const t: WebhookTarget = { host, port: u.port === '' ? 443 : Number(u.port), path: `${u.pathname}${u.search}`, servername: host };
      if (ca) t.ca = ca;
      return t;
    }
    throw new Error('clientConfig names neither a service nor a url');
  }

  /** Run every matching webhook; throws the KubeApiError the client gets when one refuses. */
  async admit(req: WebhookRequest): Promise<string[]> {
    const hooks = this.matching(req);
    if (hooks.length === 0) return [];
    const results = await Promise.all(hooks.map((w) => this.call(w, req)));
    const warnings: string[] = [];
    for (const r of results) {
      if (r instanceof KubeApiError) throw r;
      warnings.push(...r);
    }
    return warnings;
  }

  private async call(w: ValidatingWebhook, req: WebhookRequest): Promise<KubeApiError | string[]> {
    const uid = randomUUID();
    const seconds = Math.min(Math.max(w.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, 1), MAX_TIMEOUT_SECONDS);
    const t0 = this.o.clock.now();
    let verdict: WebhookVerdict;
    try {
      const body = await this.transport(this.target(w), admissionReview(uid, req), seconds * 1000, this.o.clock);
      verdict = parseVerdict(body, uid);
    } catch (e) {
      const why = e instanceof KubeApiError || e instanceof Error ? e.message : String(e);
      const ignore = w.failurePolicy === 'Ignore';
      this.o.logger.warn({ webhook: w.name, resource: req.rt.resource, name: req.name, err: why, failurePolicy: ignore ? 'Ignore' : 'Fail', ms: this.o.clock.now() - t0 }, ignore ? 'admission webhook failed; admitting (failurePolicy Ignore)' : 'admission webhook failed; refusing (failurePolicy Fail)');
      if (ignore) return [];
      return new KubeApiError('InternalError', `Internal error occurred: failed calling webhook "${w.name}": ${why}`);
    }
    this.o.logger.debug({ webhook: w.name, resource: req.rt.resource, name: req.name, allowed: verdict.allowed, ms: this.o.clock.now() - t0 }, 'admission webhook called');
    if (verdict.allowed) return verdict.warnings ?? [];
    const st = verdict.status ?? {};
    const code = typeof st.code === 'number' && st.code >= 400 && st.code < 600 ? st.code : 403;
    const message = `admission webhook "${w.name}" denied the request${st.message ? `: ${st.message}` : ' without explanation'}`;
    const reason = code === 422 ? 'Invalid' : code === 400 ? 'BadRequest' : code === 404 ? 'NotFound' : code === 409 ? 'Conflict' : code >= 500 ? 'InternalError' : 'Forbidden';
    return new KubeApiError(reason, message, {}, [], code);
  }
}

/** Read an AdmissionReview response; a malformed one is a webhook failure. */
export function parseVerdict(body: unknown, uid: string): WebhookVerdict {
  if (!isRecord(body) || body.kind !== 'AdmissionReview' || body.apiVersion !== 'admission.k8s.io/v1') throw new Error('expected response of kind AdmissionReview, apiVersion admission.k8s.io/v1');
  const r = body.response;
  if (!isRecord(r)) throw new Error('webhook response was absent');
  if (r.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid)}`);
  if (typeof r.allowed !== 'boolean') throw new Error('response.allowed must be a boolean');
  const v: WebhookVerdict = { allowed: r.allowed };
  if (isRecord(r.status)) v.status = r.status as NonNullable<WebhookVerdict['status']>;
  if (Array.isArray(r.warnings)) v.warnings = r.warnings.filter((x): x is string => typeof x === 'string');
  return v;
}

const OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** Field errors of a ValidatingWebhookConfiguration, worded as kube-apiserver words them. */
export function validateWebhookConfiguration(cfg: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const bad = (field: string, value: unknown, why: string): void => {
    errs.push({ field, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(value) ?? 'null'}: ${why}` });
  };
  const required = (field: string, why = 'Required value'): void => {
    errs.push({ field, reason: 'FieldValueRequired', detail: why });
  };
  if (cfg.webhooks !== undefined && !Array.isArray(cfg.webhooks)) {
    bad('webhooks', cfg.webhooks, 'must be a list');
    return errs;
  }
  const seen = new Set<string>();
  ((cfg.webhooks ?? []) as unknown[]).forEach((raw, i) => {
    const p = `webhooks[${i}]`;
    if (!isRecord(raw)) return bad(p, raw, 'must be an object');
    const w = raw as Partial<ValidatingWebhook> & { sideEffects?: unknown; admissionReviewVersions?: unknown };
    if (typeof w.name !== 'string' || w.name === '') required(`${p}.name`);
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(w.name)) bad(`${p}.name`, w.name, 'should be a domain with at least three segments separated by dots');
    else if (seen.has(w.name)) errs.push({ field: `${p}.name`, reason: 'FieldValueDuplicate', detail: `Duplicate value: ${JSON.stringify(w.name)}` });
    else seen.add(w.name);
    const cc: Record<string, unknown> = isRecord(w.clientConfig) ? w.clientConfig : {};
    if ((cc.url !== undefined ? 1 : 0) + (cc.service !== undefined ? 1 : 0) !== 1) required(`${p}.clientConfig`, 'Required value: exactly one of url or service is required');
    if (cc.url !== undefined) {
      let u: URL | undefined;
      try {
        u = new URL(String(cc.url));
      } catch {
        bad(`${p}.clientConfig.url`, cc.url, 'must be a valid URL');
      }
      if (u && u.protocol !== 'https:') bad(`${p}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme");
    }
    if (cc.service !== undefined) {
      const s: Record<string, unknown> = isRecord(cc.service) ? cc.service : {};
      if (typeof s.name !== 'string' || s.name === '') required(`${p}.clientConfig.service.name`);
      if (typeof s.namespace !== 'string' || s.namespace === '') required(`${p}.clientConfig.service.namespace`);
      if (s.port !== undefined && !(Number.isInteger(s.port) && (s.port as number) >= 1 && (s.port as number) <= 65535)) bad(`${p}.clientConfig.service.port`, s.port, 'port is not valid: must be between 1 and 65535, inclusive');
      if (s.path !== undefined && (typeof s.path !== 'string' || !s.path.startsWith('/'))) bad(`${p}.clientConfig.service.path`, s.path, "must start with a '/'");
    }
    if (cc.caBundle !== undefined && (typeof cc.caBundle !== 'string' || !Buffer.from(cc.caBundle, 'base64').toString('utf8').includes('-----BEGIN CERTIFICATE-----'))) bad(`${p}.clientConfig.caBundle`, '<omitted>', 'must be base64 of PEM certificates');
    if (w.failurePolicy !== undefined && w.failurePolicy !== 'Fail' && w.failurePolicy !== 'Ignore') errs.push({ field: `${p}.failurePolicy`, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(w.failurePolicy)}: supported values: "Fail", "Ignore"` });
    if (w.sideEffects === undefined) required(`${p}.sideEffects`, 'Required value: must specify one of None, NoneOnDryRun');
    else if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') errs.push({ field: `${p}.sideEffects`, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(w.sideEffects)}: supported values: "None", "NoneOnDryRun"` });
    if (!Array.isArray(w.admissionReviewVersions) || w.admissionReviewVersions.length === 0) required(`${p}.admissionReviewVersions`, 'Required value: must specify one of v1, v1beta1');
    else if (!w.admissionReviewVersions.includes('v1')) bad(`${p}.admissionReviewVersions`, w.admissionReviewVersions, 'must include at least one of v1 (the only version this server sends)');
    if (w.timeoutSeconds !== undefined && !(Number.isInteger(w.timeoutSeconds) && w.timeoutSeconds >= 1 && w.timeoutSeconds <= 30)) bad(`${p}.timeoutSeconds`, w.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds');
    (Array.isArray(w.rules) ? w.rules : []).forEach((r, j) => {
      (r.operations ?? []).forEach((o, k) => {
        if (!OPERATIONS.includes(o)) errs.push({ field: `${p}.rules[${j}].operations[${k}]`, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(o)}: supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"` });
      });
      if (r.scope !== undefined && !['*', 'Cluster', 'Namespaced'].includes(r.scope)) errs.push({ field: `${p}.rules[${j}].scope`, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(r.scope)}: supported values: "*", "Cluster", "Namespaced"` });
      if ((r.resources ?? []).length === 0) required(`${p}.rules[${j}].resources`);
    });
  });
  return errs;
}

/** Admission hook: a configuration with field errors is refused with 422 Invalid. */
export function admitWebhookConfiguration(r: AdmissionRequest): void {
  if (r.op === 'delete') return;
  const errs = validateWebhookConfiguration(r.obj);
  if (errs.length > 0) throw invalid('ValidatingWebhookConfiguration', 'admissionregistration.k8s.io', r.obj.metadata.name ?? '', errs);
}
