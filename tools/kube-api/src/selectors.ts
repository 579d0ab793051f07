// Label and field selectors in the query-string syntax kube-apiserver accepts.

import { badRequest } from './errors';
import type { KubeObject } from './types';
import { isRecord } from './types';

export type LabelRequirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

/**
 * Parse `a=b,c!=d,e in (f,g),h notin (i),j,!k`. `=`/`==` are `in` with one value and `!=` is
 * `notin`, which (as in Kubernetes) also matches objects without the label.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  let i = 0;
  const s = text;
  const ws = (): void => {
    while (i < s.length && s[i] === ' ') i++;
  };
  const ident = (): string => {
    ws();
    const m = /^[A-Za-z0-9_.\-/]*/.exec(s.slice(i));
    const v = m ? m[0] : '';
    i += v.length;
    ws();
    return v;
  };
  const fail = (why: string): never => {
    throw badRequest(`unable to parse requirement: ${why}: "${text}"`);
  };
  while (i < s.length) {
    ws();
    if (s[i] === '!') {
      i++;
      const key = ident();
      if (key === '') fail('missing key after !');
      reqs.push({ key, op: '!' });
    } else {
      const key = ident();
      if (key === '') fail('empty key');
      if (s.startsWith('==', i) || s[i] === '=') {
        i += s.startsWith('==', i) ? 2 : 1;
        reqs.push({ key, op: 'in', values: [ident()] });
      } else if (s.startsWith('!=', i)) {
        i += 2;
        reqs.push({ key, op: 'notin', values: [ident()] });
      } else if (/^(in|notin)\s*\(/.test(s.slice(i))) {
        const op = s.startsWith('in', i) ? 'in' : 'notin';
        i += op.length;
        ws();
        i++; // (
        const close = s.indexOf(')', i);
        if (close < 0) fail('missing )');
        const values = s
          .slice(i, close)
          .split(',')
          .map((v) => v.trim());
        i = close + 1;
        reqs.push({ key, op, values: values.filter((v) => v !== '' || values.length === 1) });
      } else {
        reqs.push({ key, op: 'exists' });
      }
    }
    ws();
    if (i < s.length) {
      if (s[i] !== ',') fail(`unexpected "${s[i] ?? ''}"`);
      i++;
    }
  }
  return reqs;
}

export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'in':
        return has && r.values.includes(l[r.key] as string);
      case 'notin':
        return !has || !r.values.includes(l[r.key] as string);
    }
  });
}

/** A metav1.LabelSelector (matchLabels + matchExpressions), e.g. a Service or NetworkPolicy selector. */
export function labelSelectorMatches(sel: unknown, labels: Record<string, string> | undefined): boolean {
  if (!isRecord(sel)) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries((sel.matchLabels as Record<string, string> | undefined) ?? {})) if (l[k] !== v) return false;
  for (const e of (sel.matchExpressions as { key: string; operator: string; values?: string[] }[] | undefined) ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    if (e.operator === 'In' && !(has && vals.includes(l[e.key] as string))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(l[e.key] as string)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

export interface FieldRequirement {
  field: string;
  equal: boolean;
  value: string;
}

const supportedFields = new Set(['metadata.name', 'metadata.namespace', 'spec.nodeName', 'status.phase', 'type', 'involvedObject.name', 'involvedObject.kind', 'involvedObject.namespace', 'spec.serviceAccountName', 'status.podIP']);

export function parseFieldSelector(text: string): FieldRequirement[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const field = m[1] as string;
    if (!supportedFields.has(field)) throw badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    return { field, equal: m[2] !== '!=', value: m[3] as string };
  });
}

function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const seg of path.split('.')) cur = isRecord(cur) ? cur[seg] : undefined;
  return cur === undefined || cur === null ? '' : String(cur);
}

export function matchFields(reqs: FieldRequirement[], obj: KubeObject): boolean {
  return reqs.every((r) => (fieldValue(obj, r.field) === r.value) === r.equal);
}
