import type { ColumnType } from 'kysely';
import type { Spec, VersionSource } from './schemas.js';

type Timestamp = ColumnType<Date, Date, Date>;

/** Every catalog version; the one in effect is the latest `effective_from` not after now. */
export interface PricingVersionsTable {
  id: string;
  effective_from: Timestamp;
  provider_aliases: ColumnType<Record<string, string>, string, string>;
  spec: ColumnType<Spec, string, string>;
  source: VersionSource;
  created_at: Timestamp;
}

/** One row (id 1): the lock pricing writes take turns on, and whether baselines are opted out of. */
export interface PricingSettingsTable {
  id: number;
  /** When the first operator write opted the deployment out of built-in baselines; null: not opted out. */
  baselines_opted_out_at: Timestamp | null;
}

export interface PricingTables {
  pricing_versions: PricingVersionsTable;
  pricing_settings: PricingSettingsTable;
}
