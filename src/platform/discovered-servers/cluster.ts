import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { UnavailableError } from '../../core/errors.js';
import { loadKubeConfig } from '../../core/kubernetes/config.js';
import type { KubeObject } from '../../core/kubernetes/objects.js';
import type { KubernetesResource, KubernetesSourceConfig } from '../../core/kubernetes/schema.js';
import type { ClusterSecrets } from '../connector-credentials/index.js';

/** An object of the cluster and whether it is a Service (a custom resource otherwise). */
export interface ClusterObject {
  object: KubeObject;
  service: boolean;
}

/** The cluster of `connectorGateway.discovery`, read on demand (nothing is watched). */
export interface DiscoveryCluster {
  /** Services and the configured custom resources; throws UnavailableError naming why the cluster cannot be read. */
  list(): Promise<ClusterObject[]>;
  secrets: ClusterSecrets;
}

const DEFAULT_TIMEOUT_MS = 10_000;

function statusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** A short reason without response bodies (they may echo request details). */
function describe(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${String(status)}`;
  return error instanceof Error ? error.message : String(error);
}

function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${String(timeoutMs / 1000)} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createDiscoveryCluster(options: { config: KubernetesSourceConfig; env: Record<string, string | undefined>; timeoutMs?: number }): DiscoveryCluster {
  const { config, env } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let loaded: KubeConfig | undefined;

  /** Loaded at first use and kept; a kubeconfig that cannot be read is named on each use until it can. */
  function kubeConfig(): KubeConfig {
    try {
      loaded ??= loadKubeConfig(config, env);
      return loaded;
    } catch (error) {
      throw new UnavailableError(`the discovery cluster (connectorGateway.discovery) cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async function listServices(core: CoreV1Api, namespace: string | undefined): Promise<ClusterObject[]> {
    const list = namespace === undefined ? await core.listServiceForAllNamespaces() : await core.listNamespacedService({ namespace });
    return list.items.map((object) => ({ object, service: true }));
  }

  async function listResources(custom: CustomObjectsApi, resource: KubernetesResource, namespace: string | undefined): Promise<ClusterObject[]> {
    const { group, version, plural } = resource;
    const list = (
      namespace === undefined ? await custom.listClusterCustomObject({ group, version, plural }) : await custom.listNamespacedCustomObject({ group, version, plural, namespace })
    ) as { items?: KubeObject[] };
    return (list.items ?? []).map((object) => ({ object, service: false }));
  }

  return {
    async list() {
      const cluster = kubeConfig();
      const core = cluster.makeApiClient(CoreV1Api);
      const custom = cluster.makeApiClient(CustomObjectsApi);
      const namespaces: (string | undefined)[] = config.namespaces?.length ? [...new Set(config.namespaces)] : [undefined];
      const reads = namespaces.flatMap((namespace) => {
        const where = namespace ?? 'every namespace';
        return [
          { what: `services in ${where}`, read: () => listServices(core, namespace) },
          ...(config.resources ?? []).map((resource) => ({ what: `${resource.group}/${resource.version}/${resource.plural} in ${where}`, read: () => listResources(custom, resource, namespace) })),
        ];
      });
      const results = await Promise.allSettled(reads.map(({ what, read }) => within(read(), timeoutMs, what)));
      const failed = results.findIndex((result) => result.status === 'rejected');
      const failure = results[failed];
      if (failure?.status === 'rejected') {
        throw new UnavailableError(`the discovery cluster (connectorGateway.discovery) cannot be read: ${reads[failed]?.what ?? ''}: ${describe(failure.reason)}`);
      }
      return results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    },
    secrets: {
      async read(ref) {
        const core = kubeConfig().makeApiClient(CoreV1Api);
        let secret;
        try {
          secret = await within(core.readNamespacedSecret({ name: ref.name, namespace: ref.namespace }), timeoutMs, 'reading the Secret');
        } catch (error) {
          if (statusOf(error) === 404) throw new Error(`Secret ${ref.namespace}/${ref.name} does not exist`);
          throw new Error(describe(error));
        }
        const value = secret.data?.[ref.key];
        if (value === undefined) throw new Error(`Secret ${ref.namespace}/${ref.name} has no key "${ref.key}"`);
        return Buffer.from(value, 'base64').toString('utf8');
      },
    },
  };
}
