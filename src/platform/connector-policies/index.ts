import type { PlatformContext } from '../context.js';
import { authorizeConnectorPolicies } from './authz.js';
import { createConnectorDecisions, type ConnectorDecisions } from './decisions.js';
import { registerConnectorPolicyRoutes } from './routes.js';
import { ConnectorPolicySchema } from './schemas.js';
import { createConnectorPolicyService } from './service.js';

/** Connector policies: /v1/connectors/{id}/policy (PLATFORM-API Part 4 §5), and the decisions built on them. */
export function registerConnectorPoliciesFeature(context: PlatformContext): { decisions: ConnectorDecisions } {
  const { http, db, clock, audit, access, changes, config } = context;
  http.addSchema(ConnectorPolicySchema);
  const decisions = createConnectorDecisions({ db, changes, environment: config.connectorGateway.environment });
  const service = createConnectorPolicyService({ db, clock, audit, changes, afterWrite: () => decisions.forgetPolicies() });
  registerConnectorPolicyRoutes(http, { service: authorizeConnectorPolicies(service, access), access });
  return { decisions };
}
