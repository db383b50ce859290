import type { ConnectorDecisions, PolicyConnector, PolicyTool } from '../connector-policies/decisions.js';
import type { CredentialCaller, UpstreamCredentials } from '../connector-credentials/credentials.js';
import type { ConnectorRow } from '../connectors/store.js';
import type { GatewayCaller } from '../identity/callers.js';
import type { UpstreamPool, UpstreamTool } from './upstream.js';

/** Who calls the connector gateway: the directory user, and the credential it came with (for the upstream's). */
export interface ConnectorCaller {
  user: GatewayCaller;
  credential: CredentialCaller;
}

export const policyConnector = (connector: ConnectorRow): PolicyConnector => ({ id: connector.id, name: connector.name, gateway_id: connector.gateway_id });

export const policyTool = (tool: UpstreamTool): PolicyTool => ({ name: tool.name, readOnlyHint: tool.annotations?.readOnlyHint, destructiveHint: tool.annotations?.destructiveHint });

export interface UpstreamTools {
  /** The connector's upstream tools for this caller: from memory when listed for this user within 60 s, else listed now. */
  list(caller: ConnectorCaller, connector: ConnectorRow, options?: { fresh?: boolean }): Promise<UpstreamTool[]>;
  /** The tools `call_tool` allows this user, in upstream order. */
  allowed(caller: ConnectorCaller, connector: ConnectorRow, tools: UpstreamTool[]): Promise<UpstreamTool[]>;
}

export interface UpstreamToolsOptions {
  upstreams: UpstreamPool;
  credentials: UpstreamCredentials;
  decisions: ConnectorDecisions;
  now: () => number;
  /** How long a user's listing is reused (PLATFORM-API Part 4 §7 item 2: at most 60 s). */
  ttlMs?: number;
  maxEntries?: number;
}

interface Cached {
  version: number;
  expires: number;
  tools: UpstreamTool[];
}

/** Upstream listings per user and connector version, kept at most 60 s; a changed connector is listed again. */
export function createUpstreamTools(options: UpstreamToolsOptions): UpstreamTools {
  const { upstreams, credentials, decisions, now } = options;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 50_000;
  const cache = new Map<string, Cached>();
  const inflight = new Map<string, Promise<UpstreamTool[]>>();

  const fetchTools = async (key: string, caller: ConnectorCaller, connector: ConnectorRow): Promise<UpstreamTool[]> => {
    const headers = await credentials.headersFor(connector, caller.credential);
    const tools = await upstreams.listTools(connector, headers);
    if (cache.size >= maxEntries) cache.clear();
    cache.set(key, { version: connector.updated_at.getTime(), expires: now() + ttlMs, tools });
    return tools;
  };

  return {
    list(caller, connector, listOptions = {}) {
      const key = `${caller.user.userId}\u0000${connector.id}`;
      const cached = cache.get(key);
      if (!listOptions.fresh && cached && cached.version === connector.updated_at.getTime() && cached.expires > now()) return Promise.resolve(cached.tools);
      // one listing at a time per user and connector: concurrent first calls share it
      const running = inflight.get(key);
      if (running && !listOptions.fresh) return running;
      const listing = fetchTools(key, caller, connector).finally(() => {
        if (inflight.get(key) === listing) inflight.delete(key);
      });
      inflight.set(key, listing);
      return listing;
    },
    async allowed(caller, connector, tools) {
      if (tools.length === 0) return [];
      const names = await decisions.allowedTools(caller.user.userId, policyConnector(connector), tools.map(policyTool));
      return tools.filter((tool) => names.has(tool.name));
    },
  };
}
