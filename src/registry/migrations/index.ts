import type { Migration } from 'kysely';
import * as catalog from './001_catalog.js';

export const registryMigrations: Record<string, Migration> = {
  '001_catalog': catalog,
};

export const REGISTRY_MIGRATION_TABLE = 'registry_migrations';
