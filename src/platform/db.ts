import type { AiPoliciesTables } from './ai-policies/tables.js';
import type { AuditTables } from './audit/tables.js';
import type { BudgetsTables } from './budgets/tables.js';
import type { ClientConfigTables } from './client-config/tables.js';
import type { ConnectionsTables } from './connections/tables.js';
import type { ConnectorPoliciesTables } from './connector-policies/tables.js';
import type { ConnectorIdpTables } from './connector-idps/tables.js';
import type { ConnectorsTables } from './connectors/tables.js';
import type { DirectoryTables } from './directory/tables.js';
import type { KeysTables } from './keys/tables.js';
import type { PricingTables } from './pricing/tables.js';
import type { SecretsTables } from './secrets/tables.js';
import type { ToolUsageTables } from './tool-usage/tables.js';
import type { UsageTables } from './usage/tables.js';

/** Every table of the platform's database; each feature declares its own in its tables.ts. */
export type PlatformDatabase = AiPoliciesTables & AuditTables & ClientConfigTables & DirectoryTables & KeysTables & PricingTables & BudgetsTables & UsageTables & SecretsTables & ConnectorIdpTables & ConnectorsTables & ConnectorPoliciesTables & ConnectionsTables & ToolUsageTables;
