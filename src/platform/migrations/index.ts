import type { Migration } from 'kysely';
import * as foundation from './001_foundation.js';
import * as directory from './002_directory.js';
import * as clientConfig from './003_client_config.js';
import * as keys from './004_keys.js';
import * as pricing from './005_pricing.js';
import * as budgets from './006_budgets.js';
import * as usage from './007_usage.js';
import * as connectorSecrets from './008_connector_secrets.js';
import * as connectors from './009_connectors.js';
import * as connectorPolicies from './010_connector_policies.js';
import * as connections from './011_connections.js';
import * as toolUsage from './012_tool_usage.js';
import * as aiPolicies from './013_ai_policies.js';
import * as usageAiPolicy from './014_usage_ai_policy.js';
import * as toolUsageFolds from './015_tool_usage_folds.js';

/** In the order they apply; a feature adds its own file and line. */
export const platformMigrations: Record<string, Migration> = {
  '001_foundation': foundation,
  '002_directory': directory,
  '003_client_config': clientConfig,
  '004_keys': keys,
  '005_pricing': pricing,
  '006_budgets': budgets,
  '007_usage': usage,
  '008_connector_secrets': connectorSecrets,
  '009_connectors': connectors,
  '010_connector_policies': connectorPolicies,
  '011_connections': connections,
  '012_tool_usage': toolUsage,
  '013_ai_policies': aiPolicies,
  '014_usage_ai_policy': usageAiPolicy,
  '015_tool_usage_folds': toolUsageFolds,
};

export const PLATFORM_MIGRATION_TABLE = 'platform_migrations';
