import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { ConflictError, InvalidInputError, NotFoundError, PreconditionFailedError, PreconditionRequiredError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import { BASELINE } from './baseline/baseline.generated.js';
import { entryKey, type PricingCatalog } from './catalog.js';
import { publishOperatorVersion } from './operations/publish-version.js';
import { catalogEtag, entryEtag, ifMatches, presentCatalog, presentVersion, stateOf } from './present.js';
import type { Catalog, CatalogBody, Entry, EntryBody, Vendor, Version, VersionSummary } from './schemas.js';
import { currentAndStaged, deleteVersion, findVersionAt, insertVersion, listVersions, lockSettings, newestBaselineDate, type VersionRow } from './store.js';
import { entryFrom, sortEntries, specFrom } from './validate.js';

export interface PricingService {
  getCatalog(actor: Actor): Promise<{ catalog: Catalog; etag: string }>;
  replaceCatalog(actor: Actor, body: CatalogBody, ifMatch: string | undefined): Promise<{ status: 200 | 201; catalog: Catalog; etag: string; location?: string }>;
  listVersions(actor: Actor): Promise<{ versions: VersionSummary[] }>;
  getVersion(actor: Actor, effectiveFrom: string): Promise<Version>;
  getEntry(actor: Actor, provider: string, model: string): Promise<{ entry: Entry; etag: string }>;
  putEntry(actor: Actor, provider: string, model: string, body: EntryBody, ifMatch: string | undefined): Promise<{ status: 200 | 201; entry: Entry; etag: string }>;
  deleteEntry(actor: Actor, provider: string, model: string, ifMatch: string | undefined): Promise<{ etag: string }>;
  deleteStagedVersion(actor: Actor, effectiveFrom: string): Promise<void>;
  /** At start: publishes the built-in baseline when it is newer than the last one, unless opted out. */
  publishBaseline(): Promise<boolean>;
}

export interface PricingServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  changes: ChangeFeed;
  catalog: PricingCatalog;
  logger: Logger;
  /** `pricing.baseline` of the configuration. */
  baseline: boolean;
  /** The rate block each configured provider's wire format takes (an entry for it must use that block). */
  providerFormats?: Readonly<Record<string, Vendor>>;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function instant(field: string, text: string): Date {
  const date = new Date(text);
  if (!RFC3339.test(text) || Number.isNaN(date.getTime())) throw new InvalidInputError(`${field}: "${text}" is not an RFC 3339 time (example: 2026-12-01T00:00:00.000Z)`);
  return date;
}

const NO_CATALOG = 'no pricing catalog is in effect; PUT /v1/budgets/pricing publishes one';
const STAGED = (row: VersionRow) =>
  `a staged pricing version takes effect at ${row.effective_from.toISOString()}; pricing writes are refused until then, or until DELETE /v1/budgets/pricing/versions/${row.effective_from.toISOString()} removes it`;

export function createPricingService(options: PricingServiceOptions): PricingService {
  const { db, clock, ids, audit, changes, catalog, logger } = options;
  const formats = options.providerFormats ?? {};

  /** The locked state every write starts from: the version in effect and the staged one, if any. */
  const writeState = async (trx: Kysely<PlatformDatabase>, now: Date) => {
    await lockSettings(trx);
    const rows = await currentAndStaged(trx, now);
    return { staged: rows.find((row) => row.effective_from > now), current: rows.find((row) => row.effective_from <= now) };
  };
  /** A new operator version dated now, never at or before the one it supersedes. */
  const operatorVersion = (current: VersionRow | undefined, now: Date, fields: Pick<VersionRow, 'provider_aliases' | 'spec'>): VersionRow => {
    const after = current ? current.effective_from.getTime() + 1 : 0;
    return { id: ids.uuid(), effective_from: new Date(Math.max(now.getTime(), after)), source: 'operator', created_at: now, ...fields };
  };
  const afterWrite = () => catalog.refresh().catch((error: unknown) => logger.warn({ err: error }, 'cannot reload the pricing catalog after a write'));

  /** An entry write (put or delete): 428, 404 without a catalog, 409 while staged, 412 when stale, in that order. */
  const writeEntry = async (
    actor: Actor,
    provider: string,
    model: string,
    ifMatch: string | undefined,
    change: (before: Entry | undefined, current: VersionRow) => { entries: Entry[]; after: Entry | undefined; action: string },
  ) => {
    if (ifMatch === undefined) throw new PreconditionRequiredError('If-Match: required; send the ETag of GET /v1/budgets/pricing or of this entry (or * to overwrite)');
    const now = clock.now();
    const result = await db.transaction().execute(async (trx) => {
      const { staged, current } = await writeState(trx, now);
      if (!current) throw new NotFoundError(NO_CATALOG);
      if (staged) throw new ConflictError(STAGED(staged));
      const before = current.spec.entries.find((entry) => entry.provider === provider && entry.model === model);
      const tags = [catalogEtag(current.id), ...(before ? [entryEtag(before)] : [])];
      if (!ifMatches(ifMatch, tags)) {
        throw new PreconditionFailedError('If-Match: the pricing catalog changed since you read it; read it again', { etag: before ? entryEtag(before) : catalogEtag(current.id) });
      }
      const { entries, after, action } = change(before, current);
      const version = operatorVersion(current, now, { provider_aliases: current.provider_aliases, spec: { entries, tools: current.spec.tools } });
      await publishOperatorVersion(trx, version, { audit, changes, actor, action, target: { type: 'pricing_entry', id: `${provider}/${model}`, before: before ?? null, after: after ?? null } });
      return { version, before, after };
    });
    await afterWrite();
    return result;
  };

  return {
    // reads come from this replica's catalog in effect, the one the gateway prices with
    getCatalog() {
      const version = catalog.inEffect();
      if (!version) return Promise.reject(new NotFoundError(NO_CATALOG));
      return Promise.resolve({ catalog: presentCatalog(version.row), etag: catalogEtag(version.row.id) });
    },

    async replaceCatalog(actor, body, ifMatch) {
      const now = clock.now();
      const effectiveFrom = body.effective_from === undefined ? undefined : instant('effective_from', body.effective_from);
      if (effectiveFrom && effectiveFrom <= now) throw new InvalidInputError('effective_from: must be in the future (leave it out to publish now)');
      const spec = specFrom(body.spec, formats);
      const result = await db.transaction().execute(async (trx) => {
        const { staged, current } = await writeState(trx, now);
        if (current && ifMatch === undefined) throw new PreconditionRequiredError('If-Match: required once a catalog is in effect; send the ETag of GET /v1/budgets/pricing');
        if (staged) throw new ConflictError(STAGED(staged));
        if (current && ifMatch !== undefined && !ifMatches(ifMatch, [catalogEtag(current.id)])) {
          throw new PreconditionFailedError('If-Match: the pricing catalog changed since you read it; read it again', { etag: catalogEtag(current.id) });
        }
        const fields = { provider_aliases: body.provider_aliases, spec };
        const version = effectiveFrom ? { id: ids.uuid(), effective_from: effectiveFrom, source: 'operator' as const, created_at: now, ...fields } : operatorVersion(current, now, fields);
        await publishOperatorVersion(trx, version, {
          audit,
          changes,
          actor,
          action: effectiveFrom ? 'pricing.version.stage' : 'pricing.catalog.replace',
          target: { type: 'pricing_catalog', id: version.id, before: current ? presentCatalog(current) : null, after: presentCatalog(version) },
        });
        return version;
      });
      await afterWrite();
      const answer = { catalog: presentCatalog(result), etag: catalogEtag(result.id) };
      if (!effectiveFrom) return { status: 200, ...answer };
      return { status: 201, ...answer, location: `/v1/budgets/pricing/versions/${result.effective_from.toISOString()}` };
    },

    async listVersions() {
      const now = clock.now();
      const rows = await listVersions(db);
      const inEffectId = rows.find((row) => row.effective_from <= now)?.id;
      return { versions: rows.map((row) => ({ id: row.id, effective_from: row.effective_from.toISOString(), source: row.source, state: stateOf(row, inEffectId, now) })) };
    },

    async getVersion(_actor, effectiveFrom) {
      const at = instant('effectiveFrom', effectiveFrom);
      const row = await findVersionAt(db, at);
      if (!row) throw new NotFoundError(`no pricing version takes effect at ${at.toISOString()}`);
      const now = clock.now();
      const inEffectId = (await currentAndStaged(db, now)).find((candidate) => candidate.effective_from <= now)?.id;
      return presentVersion(row, stateOf(row, inEffectId, now));
    },

    getEntry(_actor, provider, model) {
      const version = catalog.inEffect();
      const entry = version?.entries.get(entryKey(provider, model));
      if (!entry) return Promise.reject(new NotFoundError(version ? `no pricing entry for provider "${provider}" and model "${model}"` : NO_CATALOG));
      return Promise.resolve({ entry, etag: entryEtag(entry) });
    },

    async putEntry(actor, provider, model, body, ifMatch) {
      const entry = entryFrom(provider, model, body, 'body', formats);
      const { before } = await writeEntry(actor, provider, model, ifMatch, (previous, current) => ({
        entries: sortEntries([...current.spec.entries.filter((item) => item !== previous), entry]),
        after: entry,
        action: previous ? 'pricing.entry.replace' : 'pricing.entry.create',
      }));
      return { status: before ? 200 : 201, entry, etag: entryEtag(entry) };
    },

    async deleteEntry(actor, provider, model, ifMatch) {
      const { version } = await writeEntry(actor, provider, model, ifMatch, (previous, current) => {
        if (!previous) throw new NotFoundError(`no pricing entry for provider "${provider}" and model "${model}"`);
        return { entries: current.spec.entries.filter((item) => item !== previous), after: undefined, action: 'pricing.entry.delete' };
      });
      return { etag: catalogEtag(version.id) };
    },

    async deleteStagedVersion(actor, effectiveFrom) {
      const at = instant('effectiveFrom', effectiveFrom);
      await db.transaction().execute(async (trx) => {
        await lockSettings(trx);
        const row = await findVersionAt(trx, at);
        if (!row) throw new NotFoundError(`no pricing version takes effect at ${at.toISOString()}`);
        if (row.effective_from <= clock.now()) throw new ConflictError(`the pricing version of ${at.toISOString()} is already in effect or superseded; only a staged version can be removed`);
        await deleteVersion(trx, row.id);
        await audit.record(trx, { actor, action: 'pricing.version.delete', targetType: 'pricing_catalog', targetId: row.id, before: presentCatalog(row), after: null });
        await changes.publish(trx as never, TOPICS.pricing);
      });
      await afterWrite();
    },

    async publishBaseline() {
      if (!options.baseline) return false;
      const effectiveFrom = new Date(BASELINE.effective_from);
      const published = await db.transaction().execute(async (trx) => {
        const settings = await lockSettings(trx);
        if (settings.baselines_opted_out_at !== null) return false;
        const newest = await newestBaselineDate(trx);
        if (newest && newest >= effectiveFrom) return false;
        const row: VersionRow = {
          id: ids.uuid(),
          effective_from: effectiveFrom,
          provider_aliases: BASELINE.provider_aliases,
          spec: BASELINE.spec,
          source: 'baseline',
          created_at: clock.now(),
        };
        await insertVersion(trx, row);
        await changes.publish(trx as never, TOPICS.pricing);
        return true;
      });
      if (published) logger.info({ effective_from: BASELINE.effective_from, entries: BASELINE.spec.entries.length }, 'published the built-in pricing baseline');
      return published;
    },
  };
}
