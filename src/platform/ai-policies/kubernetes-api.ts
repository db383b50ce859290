import { ApiException, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, V1DeleteOptions, V1Preconditions } from '@kubernetes/client-node';
import { ConflictError, DomainError, NotFoundError, UnavailableError } from '../../core/errors.js';
import { ViolationsError } from './errors.js';
import { GROUP, PLURAL, VERSION, type KubePolicy } from './kubernetes-objects.js';

/** The AIPolicy objects of one namespace, through the API server (no watch: kubernetes-watch.ts). */
export interface PolicyApi {
  /** The collection's path, for the watch. */
  path: string;
  get(name: string): Promise<KubePolicy>;
  list(): Promise<{ items: KubePolicy[]; resourceVersion: string }>;
  create(body: KubePolicy): Promise<KubePolicy>;
  /** Merge patch of the main resource (the API server ignores status there). */
  patch(name: string, patch: Record<string, unknown>): Promise<KubePolicy>;
  /** Merge patch of the status subresource. */
  patchStatus(name: string, patch: Record<string, unknown>): Promise<KubePolicy>;
  /** The object when finalizers hold it, else a Status. */
  delete(name: string, resourceVersion: string | undefined): Promise<unknown>;
}

/**
 * The cluster of `aiGateway.kubernetes`: its kubeconfig file, or the pod's service account when there is
 * none. A cluster that cannot be loaded stops the start, naming the key.
 */
export function loadPolicyCluster(kubeconfig: string | undefined): KubeConfig {
  const config = new KubeConfig();
  try {
    if (kubeconfig === undefined) config.loadFromCluster();
    else config.loadFromFile(kubeconfig);
  } catch (error) {
    throw new Error(`aiGateway.kubernetes.kubeconfig: cannot load "${kubeconfig ?? ''}": ${error instanceof Error ? error.message : String(error)}`);
  }
  const server = config.getCurrentCluster()?.server ?? '';
  if (kubeconfig === undefined && /undefined/.test(server)) {
    throw new Error('aiGateway.kubernetes.kubeconfig: absent, and this process does not run in a Kubernetes pod (no service account); name a kubeconfig file');
  }
  if (server === '') throw new Error(`aiGateway.kubernetes.kubeconfig: "${kubeconfig ?? ''}" names no cluster in its current context`);
  return config;
}

/** A delete that only happens while the object is still at `resourceVersion`. */
function deleteOptions(resourceVersion: string): V1DeleteOptions {
  const preconditions = new V1Preconditions();
  preconditions.resourceVersion = resourceVersion;
  const options = new V1DeleteOptions();
  options.preconditions = preconditions;
  return options;
}

function within<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the Kubernetes API server within ${String(timeoutMs / 1000)} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createPolicyApi(kubeConfig: KubeConfig, namespace: string, timeoutMs: number): PolicyApi {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const where = { group: GROUP, version: VERSION, namespace, plural: PLURAL };
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return {
    path: `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURAL}`,
    get: (name) => within(api.getNamespacedCustomObject({ ...where, name }), timeoutMs) as Promise<KubePolicy>,
    async list() {
      const list = (await within(api.listNamespacedCustomObject(where), timeoutMs)) as { items?: KubePolicy[]; metadata?: { resourceVersion?: string } };
      return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    create: (body) => within(api.createNamespacedCustomObject({ ...where, body }), timeoutMs) as Promise<KubePolicy>,
    patch: (name, body) => within(api.patchNamespacedCustomObject({ ...where, name, body }, mergePatch), timeoutMs) as Promise<KubePolicy>,
    patchStatus: (name, body) => within(api.patchNamespacedCustomObjectStatus({ ...where, name, body }, mergePatch), timeoutMs) as Promise<KubePolicy>,
    delete: (name, resourceVersion) => within(api.deleteNamespacedCustomObject({ ...where, name, ...(resourceVersion !== undefined && { body: deleteOptions(resourceVersion) }) }), timeoutMs),
  };
}

interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

function statusBodyOf(error: ApiException<unknown>): StatusBody {
  const body = error.body;
  if (typeof body === 'object' && body !== null) return body;
  try {
    return JSON.parse(String(body)) as StatusBody;
  } catch {
    return {};
  }
}

export const statusCodeOf = (error: unknown): number | undefined => (error instanceof ApiException ? error.code : undefined);

/** Why the API server could not be used, without its response body (it may echo request details). */
export function describeFailure(error: unknown): string {
  const status = statusCodeOf(error);
  if (status !== undefined) return `HTTP ${String(status)}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The API server's answer as the contract's error (rule 12): AlreadyExists → 409, 404 → 404, 422 →
 * 422 with its causes as violations. 409 Conflict is the caller's to turn into 412 (it needs the
 * current ETag). Anything else (network, 5xx, the service account refused) → 503.
 */
export function failureOf(error: unknown, name: string): DomainError {
  if (error instanceof DomainError) return error;
  const status = statusCodeOf(error);
  if (status === 404) return new NotFoundError(`no AI policy named "${name}"`);
  if (error instanceof ApiException && status === 409 && statusBodyOf(error).reason === 'AlreadyExists') return new ConflictError(`an AI policy named "${name}" already exists`);
  if (error instanceof ApiException && status === 422) {
    const body = statusBodyOf(error);
    const violations = (body.details?.causes ?? []).map((cause) => ({ field: cause.field ?? '', message: cause.message ?? '' }));
    return new ViolationsError(422, `the Kubernetes API server refused the AI policy: ${body.message ?? 'invalid'}`, violations);
  }
  return new UnavailableError(`the Kubernetes API server cannot be used for AI policies (${describeFailure(error)}); try again shortly`);
}

/** 409 with reason Conflict: the object changed since the resourceVersion the write carried. */
export const isVersionConflict = (error: unknown) => error instanceof ApiException && error.code === 409 && statusBodyOf(error).reason !== 'AlreadyExists';
