import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../../../core/clock.js';
import type { RegistryDatabase } from '../../../tables.js';
import { lockOwnSync, recordSyncFailure, recordSyncSuccess } from '../../../sync/operations/record-sync-outcome.js';
import { countRecords, keyOf, writeSourceEntries } from '../../../sync/operations/write-source-entries.js';
import type { IngestRecord } from '../records.js';
import { Collection, collectionTargets } from './collection.js';
import { exportedEntry } from './objects.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../../../core/kubernetes/config.js';
import type { KubernetesSourceConfig } from '../../../../core/kubernetes/schema.js';

const REPORTED_PROBLEMS = 3;

export interface SourceWatchOptions {
  db: Kysely<RegistryDatabase>;
  clock: Clock;
  logger: Logger;
  owner: string;
  sourceName: string;
  config: KubernetesSourceConfig;
  /** Quiet time after a change before the snapshot is written: a burst of events makes one write. */
  debounceMs: number;
  /** The process environment: KUBECONFIG and KUBERNETES_SERVICE_HOST say where the cluster is. */
  env: Record<string, string | undefined>;
  onCatalogChanged(): Promise<void>;
  /** Objects skipped by a new snapshot: without a valid name (`invalid`), or with broken annotations (`errors`). */
  onSkipped?(sourceName: string, invalid: number, errors: number): void;
  /** The lease row no longer names this owner: the watch must stop. */
  onLost(): void;
}

export interface Snapshot {
  records: IngestRecord[];
  problems: string[];
  errors: number;
}

/** The union of every collection's exported objects; on a repeated name@version the first object (by key) wins. */
export function buildSnapshot(collections: readonly Collection[], service: readonly boolean[]): Snapshot {
  const records: IngestRecord[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  let errors = 0;
  collections.forEach((collection, index) => {
    const keys = [...collection.objects.keys()].sort();
    for (const key of keys) {
      const object = collection.objects.get(key);
      if (!object) continue;
      const outcome = exportedEntry(object, service[index] ?? true);
      if (outcome.kind === 'ignored') continue;
      if (outcome.kind === 'skipped') {
        problems.push(outcome.reason);
        if (outcome.error) errors++;
        continue;
      }
      const recordKey = keyOf('server', outcome.record.name, outcome.record.version);
      if (seen.has(recordKey)) {
        problems.push(`${key}: ${outcome.record.name}@${outcome.record.version} is exported by another object; the first one is kept`);
        continue;
      }
      seen.add(recordKey);
      records.push(outcome.record);
    }
  });
  return { records, problems, errors };
}

function describeProblems(problems: string[]): string {
  if (problems.length === 0) return '';
  const shown = problems.slice(0, REPORTED_PROBLEMS).join('; ');
  const more = problems.length > REPORTED_PROBLEMS ? ` (and ${problems.length - REPORTED_PROBLEMS} more)` : '';
  return `skipped ${problems.length} object(s): ${shown}${more}`;
}

/**
 * Discovery for one kubernetes source held under this replica's lease: list+watch of every
 * collection, and after each burst of changes a full snapshot written in one transaction.
 */
export class SourceWatch {
  private readonly collections: Collection[] = [];
  private readonly service: boolean[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastWarned = '';

  constructor(private readonly options: SourceWatchOptions) {}

  start(): void {
    const { config, logger, sourceName } = this.options;
    const log = logger.child({ source: sourceName });
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = loadKubeConfig(config, this.options.env);
    } catch (error) {
      void this.recordFailure(`cannot load the Kubernetes configuration: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    for (const target of collectionTargets(config.namespaces ?? [], config.resources ?? [])) {
      const collection = new Collection({
        kubeConfig,
        target,
        logger: log,
        onChange: () => this.schedule(),
        onError: (message) => void this.recordFailure(message),
      });
      this.collections.push(collection);
      this.service.push(target.resource === undefined);
    }
    for (const collection of this.collections) collection.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.collections.map((collection) => collection.stop()));
    await this.writing;
  }

  /** Times each collection was listed (tests check re-lists). */
  listCount(): number {
    return this.collections.reduce((sum, collection) => sum + collection.lists, 0);
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write()).catch((error: unknown) => {
        this.options.logger.warn({ err: error, source: this.options.sourceName }, 'cannot write the kubernetes snapshot');
        this.schedule();
      });
    }, this.options.debounceMs);
  }

  private async write(): Promise<void> {
    // until every collection has been listed, a snapshot would drop the entries of the others
    if (this.stopped || !this.collections.every((collection) => collection.listed)) return;
    const { db, clock, owner, sourceName, logger } = this.options;
    const snapshot = buildSnapshot(this.collections, this.service);
    const now = clock.now();
    const message = describeProblems(snapshot.problems);
    const written = await db.transaction().execute(async (trx) => {
      if (!(await lockOwnSync(trx, sourceName, owner))) return undefined;
      const result = await writeSourceEntries(trx, sourceName, snapshot.records, {}, now);
      await recordSyncSuccess(trx, { sourceName, owner, startedAt: now, now, watched: true }, countRecords(snapshot.records), undefined, message);
      return result;
    });
    if (!written) {
      this.options.onLost();
      return;
    }
    if (message !== this.lastWarned) {
      this.lastWarned = message;
      if (message !== '') {
        logger.warn({ source: sourceName, skipped: snapshot.problems.length, errors: snapshot.errors }, message);
        this.options.onSkipped?.(sourceName, snapshot.problems.length - snapshot.errors, snapshot.errors);
      }
    }
    if (written.inserted + written.updated + written.deleted > 0) {
      logger.info({ source: sourceName, ...written }, 'kubernetes source updated');
      await this.options.onCatalogChanged();
    }
  }

  private async recordFailure(message: string): Promise<void> {
    const { db, clock, owner, sourceName } = this.options;
    const now = clock.now();
    await db
      .transaction()
      .execute((trx) => recordSyncFailure(trx, { sourceName, owner, startedAt: now, now, watched: true }, message))
      .catch(() => undefined);
  }
}
