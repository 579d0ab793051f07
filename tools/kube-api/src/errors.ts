// Kubernetes API errors: a typed error family that renders as a meta/v1 Status object.

/** One entry of Status.details.causes, as a real API server reports a field error. */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** A meta/v1 Status object (kind Status). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[] };
  code: number;
}

/** Stable error codes of this package, one per HTTP status reason the server emits. */
export type KubeApiErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Forbidden'
  | 'Unauthorized'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'Gone'
  | 'Expired'
  | 'ServiceUnavailable'
  | 'InternalError'
  | 'NotAcceptable';

const httpCodes: Record<KubeApiErrorCode, number> = {
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Invalid: 422,
  BadRequest: 400,
  Forbidden: 403,
  Unauthorized: 401,
  MethodNotAllowed: 405,
  UnsupportedMediaType: 415,
  Gone: 410,
  Expired: 410,
  ServiceUnavailable: 503,
  InternalError: 500,
  NotAcceptable: 406,
};

/** What a Status names: the resource (group + kind or plural) and object name. */
export interface StatusTarget {
  group?: string;
  kind?: string;
  name?: string;
}

/**
 * An error the API server answers with. `code` is the Kubernetes Status reason; `httpStatus`
 * its HTTP code; `causes` carry field paths for validation errors.
 */
export class KubeApiError extends Error {
  readonly code: KubeApiErrorCode;
  readonly httpStatus: number;
  readonly causes: StatusCause[];
  readonly target: StatusTarget;

  /** `httpStatus` overrides the code's usual HTTP status (an admission webhook's own status code). */
  constructor(code: KubeApiErrorCode, message: string, target: StatusTarget = {}, causes: StatusCause[] = [], httpStatus?: number) {
    super(message);
    this.name = 'KubeApiError';
    this.code = code;
    this.httpStatus = httpStatus ?? httpCodes[code];
    this.causes = causes;
    this.target = target;
  }

  /** The Status object a real API server would send for this error. */
  toStatus(): Status {
    const details: NonNullable<Status['details']> = {};
    if (this.target.name !== undefined) details.name = this.target.name;
    if (this.target.group !== undefined) details.group = this.target.group;
    if (this.target.kind !== undefined) details.kind = this.target.kind;
    if (this.causes.length > 0) details.causes = this.causes;
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.code,
      code: this.httpStatus,
    };
    if (Object.keys(details).length > 0) status.details = details;
    return status;
  }
}

/** `<resource>.<group>` as the API server spells a qualified resource in messages. */
export function qualifiedResource(resource: string, group: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(resource: string, group: string, name: string): KubeApiError {
  return new KubeApiError('NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, {
    group,
    kind: resource,
    name,
  });
}

export function alreadyExists(resource: string, group: string, name: string): KubeApiError {
  return new KubeApiError('AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, {
    group,
    kind: resource,
    name,
  });
}

export function conflict(resource: string, group: string, name: string, why: string): KubeApiError {
  return new KubeApiError(
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${why}`,
    { group, kind: resource, name },
  );
}

/** A field error before it is folded into a 422 Invalid: `<field>: <detail>`. */
export interface FieldError {
  field: string;
  /** Status cause reason: FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ... */
  reason: string;
  /** Text after `<field>: `, e.g. `Invalid value: 70000: must be ...`. */
  detail: string;
}

/** 422 Invalid for `kind "name"` with its field errors, worded like kube-apiserver. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): KubeApiError {
  const parts = errors.map((e) => `${e.field}: ${e.detail}`);
  const list = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  return new KubeApiError(
    'Invalid',
    `${qualifiedKind} "${name}" is invalid: ${list}`,
    { group, kind, name },
    errors.map((e) => ({ reason: e.reason, message: e.detail, field: e.field })),
  );
}

export function badRequest(message: string): KubeApiError {
  return new KubeApiError('BadRequest', message);
}
