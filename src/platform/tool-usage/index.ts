import { parseDuration } from '../../core/config/duration.js';
import type { PlatformContext } from '../context.js';
import type { Gateways } from '../gateways/index.js';
import { loadSigningKeys } from '../signing/keyset.js';
import { authorizeToolUsage } from './authz.js';
import { createCheckpointJob, createCheckpointSigner, type CheckpointJob } from './checkpoints.js';
import { createFoldJob, type FoldJob } from './folds.js';
import type { ToolUsageRecorder } from './recorder.js';
import { createToolUsageRecorder } from './recording.js';
import { registerToolUsageRoutes } from './routes.js';
import { ToolCallUsageSchema } from './schemas.js';
import { createToolUsageService } from './service.js';

export type { ToolCallUsage, ToolUsageRecorder } from './recorder.js';

export interface ToolUsageFeature extends ToolUsageRecorder {
  /** Signs the heads left unsigned for `toolUsage.checkpointInterval` now (the timer does it too); undefined without a signing block. */
  checkpoints: Pick<CheckpointJob, 'runOnce'> | undefined;
  /** Folds the records past each chain's fold into the roll-ups now (the timer does it every second). */
  folds: Pick<FoldJob, 'runOnce'>;
}

/** Tool-call usage: the recorder the connector gateway calls, hash chains, signed checkpoints, the analytics and the export. */
export async function registerToolUsageFeature(context: PlatformContext, options: { gateways: Gateways }): Promise<ToolUsageFeature> {
  const { http, db, clock, ids, access, identity, logger, config } = context;
  http.addSchema(ToolCallUsageSchema);
  const signing = await loadSigningKeys(config.signing);
  if (!signing) logger.warn('no signing block: tool-call records are written without signed checkpoints until signing.keys is configured');
  const signer = signing && createCheckpointSigner({ key: signing.active, clock });
  const recorder = createToolUsageRecorder({ db, clock, ids, signer, checkpointEvery: config.toolUsage.checkpointEvery });
  const service = createToolUsageService({ db, clock, gateways: options.gateways, identity });
  registerToolUsageRoutes(http, { service: authorizeToolUsage(service, access), access });

  const intervalMs = parseDuration(config.toolUsage.checkpointInterval) ?? 60_000;
  const job = signer && createCheckpointJob({ db, clock, logger, signer, intervalMs });
  if (job) {
    context.lifecycle.onStart(() => job.start());
    context.lifecycle.onClose(() => job.stop());
  }
  const folds = createFoldJob({ db, logger });
  context.lifecycle.onStart(() => folds.start());
  context.lifecycle.onClose(() => folds.stop());
  // registered last, so it runs first on close: records still in flight commit before the timer and the database stop
  context.lifecycle.onClose(() => recorder.flush());
  return { record: (usage) => recorder.record(usage), checkpoints: job, folds };
}
