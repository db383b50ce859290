import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../core/clock.js';
import type { ChangeFeed } from '../core/db/change-feed.js';
import type { Database } from '../core/db/database.js';
import type { HttpApp } from '../core/http/app.js';
import type { Ids } from '../core/ids.js';
import type { AuditTrail } from './audit/service.js';
import type { PlatformConfig } from './config.js';
import type { PlatformDatabase } from './db.js';
import type { PlatformAccess } from './identity/access.js';
import type { Actor } from './identity/actor.js';
import type { IdentityResolver } from './identity/resolver.js';

/** Change-feed topics features publish on and follow (the database carries them to every replica). */
export const TOPICS = {
  /** any user created, changed, deactivated or deleted */
  users: 'directory.users',
  /** any group or membership change */
  groups: 'directory.groups',
  /** any virtual API key write */
  keys: 'keys',
  /** any pricing catalog version published or deleted */
  pricing: 'pricing',
  /** any budget collection write */
  budgets: 'budgets',
  /** any connector created, replaced or deleted */
  connectors: 'connectors',
  /** any connector policy write (groups, document, mode) */
  connectorPolicies: 'connector.policies',
  /** any user's connection created, changed or deleted (the connector gateway's state included) */
  connections: 'connections',
  /** any AI policy create, patch or delete */
  aiPolicies: 'ai.policies',
} as const;

/** What other features must do inside the directory's own transactions (a deleted user's keys are revoked). */
export interface DirectoryHooks {
  userDeleted: ((trx: Kysely<PlatformDatabase>, userId: string, actor: Actor) => Promise<void>)[];
}

/**
 * What every feature of the platform is built from. The app makes one and hands it to each feature's
 * `register<Feature>` function, which creates the feature's services, wraps them in their
 * authorization and adds its routes; features meet only through what they export.
 */
export interface PlatformContext {
  http: HttpApp;
  database: Database<PlatformDatabase>;
  db: Kysely<PlatformDatabase>;
  config: PlatformConfig;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  metrics: Registry;
  audit: AuditTrail;
  access: PlatformAccess;
  identity: IdentityResolver;
  changes: ChangeFeed;
  hooks: DirectoryHooks;
  /** Work to run when the app starts and stops (caches that follow the change feed, timers). */
  lifecycle: { onStart(task: () => void): void; onClose(task: () => Promise<void> | void): void };
}
