import type { Kysely } from 'kysely';
import { NotFoundError, UnavailableError } from '../../core/errors.js';
import { ANNOTATION, phaseOf, readExport } from '../../core/kubernetes/objects.js';
import { endpointKeyOf } from '../connectors/index.js';
import type { PlatformDatabase } from '../db.js';
import type { Gateways } from '../gateways/index.js';
import type { Actor } from '../identity/actor.js';
import type { ClusterObject, DiscoveryCluster } from './cluster.js';
import type { DiscoveredServer, DiscoveredServerList } from './schemas.js';
import { connectorsAt } from './store.js';

export interface DiscoveredServerService {
  list(actor: Actor, gatewayId: string): Promise<DiscoveredServerList>;
}

/** Whether `host` names the object's own Service: `name`, `name.ns`, `name.ns.svc` or `name.ns.svc.<cluster domain>`. */
function isOwnService(host: string, name: string, namespace: string): boolean {
  const own = `${name}.${namespace}`.toLowerCase();
  const lower = host.toLowerCase();
  return lower === name.toLowerCase() || lower === own || lower === `${own}.svc` || lower.startsWith(`${own}.svc.`);
}

interface Candidate {
  server: Omit<DiscoveredServer, 'existing_connectors'>;
  key: string;
}

/** An exported object as a discovered server, or undefined when it cannot be one (broken annotations, no http(s) URL). */
function candidateOf({ object, service }: ClusterObject): Candidate | undefined {
  const outcome = readExport(object, service);
  const { name, namespace } = object.metadata ?? {};
  if (outcome.kind !== 'server' || name === undefined || namespace === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(outcome.server.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return {
    key: endpointKeyOf(url),
    server: {
      allow_private_ips: isOwnService(url.hostname, name, namespace),
      endpoint: outcome.server.url,
      group: outcome.server.annotations[ANNOTATION.group] ?? '',
      health: phaseOf(object) ?? 'Unknown',
      name,
      namespace,
      transport: outcome.server.transport,
    },
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** PLATFORM-API Part 4 §6: the cluster's exported MCP servers, with the connectors of the gateway already holding each endpoint. */
export function createDiscoveredServerService(options: { db: Kysely<PlatformDatabase>; gateways: Gateways; cluster: DiscoveryCluster | undefined }): DiscoveredServerService {
  const { db, gateways, cluster } = options;
  return {
    async list(_actor, gatewayId) {
      if (!gateways.list().some((gateway) => gateway.id === gatewayId)) throw new NotFoundError(`no connector gateway with id "${gatewayId}" (GET /v1/gateways lists them)`);
      if (!cluster) throw new UnavailableError('connectorGateway.discovery is not configured: discovered servers come from the Kubernetes cluster it names');
      const seen = new Set<string>();
      const candidates: Candidate[] = [];
      for (const candidate of (await cluster.list()).map(candidateOf)) {
        if (!candidate) continue;
        // a custom resource served by the Service of its name, both exported, is one server
        const identity = `${candidate.server.namespace}/${candidate.server.name}/${candidate.key}`;
        if (seen.has(identity)) continue;
        seen.add(identity);
        candidates.push(candidate);
      }
      candidates.sort((a, b) => compare(a.server.namespace, b.server.namespace) || compare(a.server.name, b.server.name) || compare(a.key, b.key));
      const holders = await connectorsAt(db, gatewayId, candidates.map((candidate) => candidate.key));
      return {
        servers: candidates.map(({ server, key }) => ({
          ...server,
          existing_connectors: holders.filter((holder) => holder.endpoint_key === key).map(({ id, name }) => ({ id, name })),
        })),
      };
    },
  };
}
