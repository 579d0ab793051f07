// Typed errors of the controller. (KubeRequestError comes from @switchyard/kube.)

/** Stable codes of {@link ControllerError}. */
export type ControllerErrorCode =
  | 'KUBE_REQUEST_FAILED'
  | 'WATCH_EXPIRED'
  | 'INVALID_CONFIG'
  | 'PKI_FAILED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'BAD_REQUEST'
  /** A part was asked for what it holds before it started. */
  | 'NOT_STARTED'
  /** Stopped while starting. */
  | 'STOPPED';

/** Every error the controller raises, with a stable `code`, the offending value and where it came from. */
export class ControllerError extends Error {
  constructor(
    readonly code: ControllerErrorCode,
    message: string,
    /** Where the value came from: a URL path, a config key, a field path. */
    readonly path: string,
    readonly value?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ControllerError';
  }
}

export { KubeRequestError } from '@switchyard/kube';
