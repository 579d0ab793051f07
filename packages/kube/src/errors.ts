// Errors of the Kubernetes client.

/** A Kubernetes API request that answered with an error status (or a watch that sent an ERROR event). */
export class KubeRequestError extends Error {
  /** Stable code, shared with the controller's error family. */
  readonly code = 'KUBE_REQUEST_FAILED' as const;
  /** The request path (the value's location). */
  readonly path: string;
  constructor(
    readonly method: string,
    path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const msg = typeof body === 'object' && body !== null && 'message' in body ? String((body as { message: unknown }).message) : String(body);
    super(`${method} ${path}: ${status} ${msg}`);
    this.name = 'KubeRequestError';
    this.path = path;
  }
}
