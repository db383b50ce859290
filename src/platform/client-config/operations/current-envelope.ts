import type { Kysely } from 'kysely';
import { parseDuration } from '../../../core/config/duration.js';
import type { Ids } from '../../../core/ids.js';
import { sealEnvelope, type DegradedMode, type Directive, type UnsealedEnvelope } from '../../../core/signing/envelope.js';
import type { PlatformDatabase } from '../../db.js';
import type { SigningKey } from '../../signing/keyset.js';
import { insertEnvelope, newestEnvelope, readDirectives, type DirectivesRow, type EnvelopeRow } from '../store.js';

const DEFAULT_DEGRADED_MODE: DegradedMode = { grace_period: '24h', message: '', policy: 'warn' };

/** An envelope is served until the directives or the signing key change, or half its validity has passed. */
function isCurrent(envelope: EnvelopeRow | undefined, directives: DirectivesRow, signer: SigningKey, now: Date): envelope is EnvelopeRow {
  if (!envelope || envelope.kid !== signer.kid || envelope.directives_revision !== directives.revision) return false;
  const halfLife = (envelope.not_after.getTime() - envelope.issued_at.getTime()) / 2;
  return now.getTime() < envelope.issued_at.getTime() + halfLife;
}

function unsealed(directives: DirectivesRow, now: Date): UnsealedEnvelope {
  const config = directives.config as Record<string, Directive>;
  const degraded = (config.degraded_mode?.value ?? {}) as Partial<DegradedMode>;
  const validity = parseDuration(directives.validity) ?? 0;
  return {
    config,
    degraded_mode: { ...DEFAULT_DEGRADED_MODE, ...degraded },
    issued_at: now.toISOString(),
    not_after: new Date(now.getTime() + validity).toISOString(),
    refresh_interval: directives.refresh_interval,
    schema_version: '1',
  };
}

/**
 * The envelope every replica serves: the newest stored one while it is current, else a new one built
 * and signed by exactly one replica (the directives row is locked while it checks and builds; the others
 * wait, then find it current and serve the same bytes).
 */
export async function currentEnvelope(db: Kysely<PlatformDatabase>, options: { signer: SigningKey; now: Date; ids: Ids }): Promise<Omit<EnvelopeRow, 'sequence'>> {
  const { signer, now } = options;
  const [newest, directives] = await Promise.all([newestEnvelope(db), readDirectives(db)]);
  if (isCurrent(newest, directives, signer, now)) return newest;
  return db.transaction().execute(async (trx) => {
    const locked = await readDirectives(trx, { lock: true });
    const again = await newestEnvelope(trx);
    if (isCurrent(again, locked, signer, now)) return again;
    const envelope = unsealed(locked, now);
    const sealed = await sealEnvelope(envelope, signer.privateKey, signer.kid);
    const row = {
      id: options.ids.uuid(),
      kid: signer.kid,
      etag: sealed.etag,
      body: sealed.body,
      issued_at: new Date(envelope.issued_at),
      not_after: new Date(envelope.not_after),
      directives_revision: locked.revision,
    };
    await insertEnvelope(trx, row);
    return row;
  });
}
