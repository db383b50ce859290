import type { VerifiedToken } from '../../core/auth/token-verifier.js';
import type { Connections } from '../connections/lookup.js';
import type { UpstreamCredentials } from '../connector-credentials/credentials.js';
import type { AiPoliciesFeature } from '../ai-policies/index.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import { createUpstreamTransports, type UpstreamTransports } from '../connectors/mcp-transport.js';
import type { PlatformContext } from '../context.js';
import type { Gateways } from '../gateways/index.js';
import { createCallerIdentities } from '../identity/callers.js';
import { publicBaseUrl } from '../identity/authentication.js';
import type { KeysFeature } from '../keys/index.js';
import type { ToolUsageRecorder } from '../tool-usage/recorder.js';
import { createConnectorGatewayAuthentication } from './authentication.js';
import { createConnectorAiPolicy } from './ai-policy.js';
import { createToolCalls } from './calls.js';
import { createConnectorCatalog } from './catalog.js';
import { createToolListing } from './listing.js';
import { createMcpEndpoint } from './mcp.js';
import { mcpMetadataUrl, registerMcpRoutes } from './mcp-routes.js';
import { registerConnectorGatewayRoutes } from './routes.js';
import { ConnectorStateSchema, GatewayToolSchema } from './schemas.js';
import { createConnectorGatewayService } from './service.js';
import { createUpstreamTools } from './tools.js';
import { createUpstreamPool } from './upstream.js';

export interface ConnectorGatewayDependencies {
  keys: KeysFeature;
  gateways: Gateways;
  decisions: ConnectorDecisions;
  connections: Connections;
  credentials: UpstreamCredentials;
  toolUsage: ToolUsageRecorder;
  aiPolicies: AiPoliciesFeature;
  /** Verifies a bearer JWT; absent in anonymous mode. */
  verifyToken: ((token: string) => Promise<VerifiedToken>) | undefined;
  /** How upstreams are reached (tests may replace the private-address guard's lookup). */
  transports?: UpstreamTransports;
}

/**
 * The connector gateway (PLATFORM-API Part 4 §7): /connector-gateway/v1/connectors/{id}/tools and
 * .../state, and each gateway's MCP endpoint with its RFC 9728 document.
 */
export async function registerConnectorGatewayFeature(context: PlatformContext, deps: ConnectorGatewayDependencies): Promise<void> {
  const { http, db, changes, identity, config, clock, ids, logger } = context;
  http.decorateRequest('connectorCaller', null);
  http.addSchema(GatewayToolSchema);
  http.addSchema(ConnectorStateSchema);
  const { decisions, connections, credentials } = deps;
  const catalog = createConnectorCatalog({ db, changes, logger });
  const upstreams = createUpstreamPool({ transports: deps.transports ?? createUpstreamTransports(), logger });
  catalog.onReload((snapshot) => upstreams.retire(snapshot.byId));
  const tools = createUpstreamTools({ upstreams, credentials, decisions, now: () => clock.now().getTime() });
  const authentication = createConnectorGatewayAuthentication({
    config,
    verifier: deps.keys.verifier,
    identities: createCallerIdentities({ db, changes, identity }),
    verifyToken: deps.verifyToken,
  });

  const aiPolicy = createConnectorAiPolicy({ enforcement: deps.aiPolicies.enforcement, gateway: config.aiGateway.gateway.name });
  const service = createConnectorGatewayService({ catalog, decisions, aiPolicy, connections, credentials, tools });
  registerConnectorGatewayRoutes(http, { service, authenticate: authentication((request) => `${publicBaseUrl(config, request)}/.well-known/oauth-protected-resource`) });

  const listing = createToolListing({ catalog, decisions, aiPolicy, connections, credentials, tools, logger });
  const calls = createToolCalls({ catalog, decisions, aiPolicy, connections, credentials, tools, upstreams, recorder: deps.toolUsage, clock, ids, logger, environment: config.connectorGateway.environment });
  await registerMcpRoutes(http, { endpoint: createMcpEndpoint({ listing, calls, logger }), authenticate: authentication(mcpMetadataUrl(config)), gateways: deps.gateways, config });

  await catalog.current();
  context.lifecycle.onClose(() => upstreams.close());
}
