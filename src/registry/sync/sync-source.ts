import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { CreationType, FilterConfig, RegistryDatabase, SourceKind } from '../tables.js';
import { CatalogFormatError } from '../sources/providers/catalog-document.js';
import { SourceFetchError, sha256, type SourceProvider } from '../sources/providers/provider.js';
import type { IngestRecord } from '../sources/providers/records.js';
import { createEntryFilter } from './filter.js';
import { releaseLease, renewLease, type ClaimedSync } from './operations/claim-due-sources.js';
import { lockOwnSync, recordSyncFailure, recordSyncSuccess, type SyncOutcome } from './operations/record-sync-outcome.js';
import { countRecords, keyOf, writeSourceEntries } from './operations/write-source-entries.js';
import type { SyncMetrics } from './metrics.js';
import { findSourceToSync } from './store.js';

/** Bumped when the way records are derived from source data changes, so every source re-syncs once. */
const INGEST_FORMAT = 'v1';
const REPORTED_PROBLEMS = 3;

export interface SyncDependencies {
  db: Kysely<RegistryDatabase>;
  clock: Clock;
  logger: Logger;
  metrics: SyncMetrics;
  owner: string;
  leaseMs: number;
  /** `creationType` says whose source it is: API sources are held to the sourceAccess rules. */
  providerFor(kind: SourceKind, config: Record<string, unknown>, creationType: CreationType): SourceProvider;
  /** Called after a sync changed the catalog; resolves when this replica's read model shows it. */
  onCatalogChanged(): Promise<void>;
}

export type SyncResult = 'changed' | 'unchanged' | 'failed' | 'lost' | 'interrupted';

/** Runs one claimed sync to its end: fetch, compare, and either record "unchanged" or write the new content. */
export async function syncSource(deps: SyncDependencies, claim: ClaimedSync, shutdown?: AbortSignal): Promise<SyncResult> {
  const { db, clock, owner } = deps;
  const source = await findSourceToSync(db, claim.sourceName);
  if (!source) return 'lost';
  const logger = deps.logger.child({ source: claim.sourceName });
  const abort = new AbortController();
  const onShutdown = () => abort.abort(new Error('the server is shutting down'));
  shutdown?.addEventListener('abort', onShutdown, { once: true });
  const heartbeat = setInterval(() => {
    void renewLease(db, claim.sourceName, owner, new Date(clock.now().getTime() + deps.leaseMs)).then(
      (held) => held || abort.abort(new Error('the sync lease was lost')),
      () => undefined,
    );
  }, deps.leaseMs / 3);
  const stopTimer = deps.metrics.duration.startTimer({ source: claim.sourceName });
  const outcome = (): SyncOutcome => ({
    sourceName: claim.sourceName,
    owner,
    startedAt: claim.startedAt,
    now: clock.now(),
    intervalMs: source.sync_interval_ms ?? 3_600_000,
  });
  let result: SyncResult;
  try {
    const fetched = await deps.providerFor(source.kind, source.config, source.creation_type).fetch({ signal: abort.signal, logger });
    const contentHash = sha256(JSON.stringify([INGEST_FORMAT, fetched.fingerprint, source.filter, source.claims]));
    if (contentHash === source.content_hash) {
      result = await db.transaction().execute(async (trx) => {
        if (!(await lockOwnSync(trx, claim.sourceName, owner))) return 'lost';
        await recordSyncSuccess(trx, outcome(), undefined, contentHash);
        return 'unchanged';
      });
    } else {
      const parsed = fetched.parse();
      const { records, problems } = selectRecords(parsed.records, source.filter);
      problems.unshift(...parsed.skipped);
      result = await db.transaction().execute(async (trx) => {
        if (!(await lockOwnSync(trx, claim.sourceName, owner))) return 'lost';
        const written = await writeSourceEntries(trx, claim.sourceName, records, source.claims, clock.now());
        await recordSyncSuccess(trx, outcome(), countRecords(records), contentHash, describeProblems(problems));
        logger.info({ ...written, skipped: problems.length }, 'source synced');
        return 'changed';
      });
      if (result === 'changed') await deps.onCatalogChanged();
    }
  } catch (error) {
    if (shutdown?.aborted) {
      // not the source's fault: hand the sync back at once, for this or another replica to run
      await releaseLease(db, claim.sourceName, owner).catch(() => undefined);
      result = 'interrupted';
    } else {
      const message = failureMessage(error);
      const attempts = await db.transaction().execute((trx) => recordSyncFailure(trx, outcome(), message));
      logger.warn({ attempts, reason: message }, 'source sync failed');
      result = 'failed';
    }
  } finally {
    clearInterval(heartbeat);
    shutdown?.removeEventListener('abort', onShutdown);
  }
  stopTimer({ outcome: result });
  deps.metrics.outcomes.inc({ source: claim.sourceName, outcome: result });
  if (result !== 'lost' && result !== 'interrupted') await deps.metrics.refreshCounts(db, claim.sourceName);
  return result;
}

/** Applies the source filter and drops repeated name@version records (the first one wins). */
function selectRecords(all: IngestRecord[], filter: FilterConfig): { records: IngestRecord[]; problems: string[] } {
  const keep = createEntryFilter(filter);
  const seen = new Set<string>();
  const records: IngestRecord[] = [];
  const problems: string[] = [];
  for (const record of all) {
    const key = keyOf(record.entryType, record.name, record.version);
    if (seen.has(key)) {
      problems.push(`${record.entryType} ${record.name}@${record.version} appears more than once; the first one is kept`);
      continue;
    }
    seen.add(key);
    if (keep(record)) records.push(record);
  }
  return { records, problems };
}

function describeProblems(problems: string[]): string {
  if (problems.length === 0) return '';
  const shown = problems.slice(0, REPORTED_PROBLEMS).join('; ');
  const more = problems.length > REPORTED_PROBLEMS ? ` (and ${problems.length - REPORTED_PROBLEMS} more)` : '';
  return `skipped ${problems.length} record(s): ${shown}${more}`;
}

function failureMessage(error: unknown): string {
  if (error instanceof SourceFetchError || error instanceof CatalogFormatError) return error.message;
  if (error instanceof Error && error.name === 'AbortError') return 'the sync was interrupted';
  return `internal error during sync: ${error instanceof Error ? error.message : String(error)}`;
}
