import { parseDuration } from '../../core/config/duration.js';
import type { Envelope } from '../../core/signing/envelope.js';
import type { Mode, RefreshRecord } from './schemas.js';

export interface ModeVerdict {
  mode: Mode;
  reason: string;
  /** The envelope's message, shown once not_after has passed. */
  message: string;
  blocksNew: boolean;
}

/** The grace period when an envelope's own is unreadable: the platform's default. */
const DEFAULT_GRACE_MS = 24 * 3_600_000;

const why = (refresh: RefreshRecord | undefined): string => (refresh && refresh.error !== '' ? ` (last refresh ${refresh.at}: ${refresh.error})` : '');

/**
 * The contract's degraded mode: the last valid envelope holds until `not_after`; until `not_after +
 * grace_period` it is still enforced with its message shown; after that `warn` goes on so and
 * `block_new` also refuses new workloads until a valid envelope arrives. Enforced directives are never dropped.
 */
export function modeOf(envelope: Envelope | undefined, refresh: RefreshRecord | undefined, now: Date): ModeVerdict {
  if (!envelope) {
    return { mode: 'pending', reason: `no valid configuration has been received yet, so none is applied${why(refresh)}`, message: '', blocksNew: false };
  }
  const notAfter = new Date(envelope.not_after).getTime();
  const { grace_period: grace, policy, message } = envelope.degraded_mode;
  const graceEnd = notAfter + (parseDuration(grace) ?? DEFAULT_GRACE_MS);
  const at = now.getTime();
  if (at < notAfter) return { mode: 'current', reason: `valid until ${envelope.not_after}${why(refresh)}`, message: '', blocksNew: false };
  const stale = `no valid configuration since the one that expired at ${envelope.not_after}${why(refresh)}; its directives stay in force`;
  if (at < graceEnd) return { mode: 'grace', reason: `${stale}, within the grace period of ${grace}`, message, blocksNew: false };
  const after = `${stale}; the grace period of ${grace} ended at ${new Date(graceEnd).toISOString()}`;
  if (policy === 'block_new') return { mode: 'degraded', reason: `${after}: policy block_new refuses new workloads (running ones go on)`, message, blocksNew: true };
  return { mode: 'degraded', reason: `${after}: policy warn lets everything go on`, message, blocksNew: false };
}
