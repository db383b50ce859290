import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { BASELINE } from './baseline/baseline.generated.js';
import type { ModelLimits } from './baseline/convert.js';
import { rateBlockOf, type RateBlock } from './rates.js';
import type { Entry } from './schemas.js';
import { currentAndStaged, type VersionRow } from './store.js';

/** A priced model as the gateway uses it: the version it comes from, and its rate block. */
export interface PricedModel {
  /** The catalog version (a charge's `pricing_catalog_id`). */
  versionId: string;
  effectiveFrom: Date;
  provider: string;
  model: string;
  block: RateBlock;
  /** The price table's context limits when the baseline knows the model. */
  limits: ModelLimits | undefined;
}

/** One version as kept in memory, entries indexed by provider and model. */
export interface LoadedVersion {
  row: VersionRow;
  entries: ReadonlyMap<string, Entry>;
  /** The entries named so, in the catalog's order (providers in byte order): resolution reads this on every request. */
  byModel: ReadonlyMap<string, readonly Entry[]>;
}

/**
 * The catalog in effect on this replica. It holds the version in effect and any staged one, so a staged
 * version takes over the moment its `effective_from` passes (the clock decides, per call), and it reloads
 * whenever the change feed says a version was published or deleted anywhere.
 */
export interface PricingCatalog {
  load(): Promise<void>;
  /** Reads the versions again (after a local write, and on every change of TOPICS.pricing). */
  refresh(): Promise<void>;
  inEffect(): LoadedVersion | undefined;
  /** The entry of (`provider` or what `provider_aliases` maps it to, `model`); undefined: unpriceable. */
  lookup(provider: string, model: string): PricedModel | undefined;
  /** Model resolution of a requested name (Part 3 §1): an entry named so (`preferredProvider` first, then providers in byte order), else `p/rest` through the aliases. */
  resolve(requested: string, preferredProvider?: string): PricedModel | undefined;
}

export interface PricingCatalogOptions {
  db: Kysely<PlatformDatabase>;
  changes: ChangeFeed;
  clock: Clock;
  logger: Logger;
}

export const entryKey = (provider: string, model: string) => `${provider}\u0000${model}`;

function loadVersion(row: VersionRow): LoadedVersion {
  const byModel = new Map<string, Entry[]>();
  for (const entry of row.spec.entries) {
    const named = byModel.get(entry.model);
    if (named) named.push(entry);
    else byModel.set(entry.model, [entry]);
  }
  return { row, entries: new Map(row.spec.entries.map((entry) => [entryKey(entry.provider, entry.model), entry])), byModel };
}

export function createPricingCatalog(options: PricingCatalogOptions): PricingCatalog {
  const { db, clock, logger } = options;
  // newest first: the in-effect one is the first not after now
  let versions: LoadedVersion[] = [];
  let reading: Promise<void> | undefined;

  const read = async () => {
    versions = (await currentAndStaged(db, clock.now())).map(loadVersion);
  };
  const refresh = () => {
    const next = (reading ?? Promise.resolve()).then(read);
    reading = next.catch(() => undefined);
    return next;
  };
  const inEffect = () => {
    const now = clock.now().getTime();
    return versions.find((version) => version.row.effective_from.getTime() <= now);
  };
  // one object per entry for as long as its version is loaded: the rates memoized on its block stay valid
  const pricedEntries = new WeakMap<Entry, PricedModel>();
  const priced = (version: LoadedVersion, entry: Entry): PricedModel => {
    let model = pricedEntries.get(entry);
    if (!model) {
      model = {
        versionId: version.row.id,
        effectiveFrom: version.row.effective_from,
        provider: entry.provider,
        model: entry.model,
        block: rateBlockOf(entry, version.row.spec.tools),
        limits: BASELINE.limits[`${entry.provider}/${entry.model}`],
      };
      pricedEntries.set(entry, model);
    }
    return model;
  };

  const lookup = (provider: string, model: string) => {
    const version = inEffect();
    if (!version) return undefined;
    const entry = version.entries.get(entryKey(version.row.provider_aliases[provider] ?? provider, model));
    return entry && priced(version, entry);
  };

  options.changes.subscribe(TOPICS.pricing, () => {
    refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot reload the pricing catalog; the previous one stays in effect'));
  });

  return {
    load: read,
    refresh,
    inEffect,
    lookup,
    resolve(requested, preferredProvider) {
      const version = inEffect();
      if (!version) return undefined;
      const named = version.byModel.get(requested) ?? [];
      const chosen = named.find((entry) => entry.provider === preferredProvider) ?? named[0];
      if (chosen) return priced(version, chosen);
      const slash = requested.indexOf('/');
      if (slash <= 0) return undefined;
      return lookup(requested.slice(0, slash), requested.slice(slash + 1));
    },
  };
}
