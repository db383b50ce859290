import { createHash, X509Certificate } from 'node:crypto';
import type { Kysely } from 'kysely';
import validVersion from 'semver/functions/valid.js';
import type { Clock } from '../../core/clock.js';
import { formatDuration, parseDuration } from '../../core/config/duration.js';
import { InvalidInputError, PreconditionFailedError, PreconditionRequiredError, UnavailableError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import type { SigningKeySet } from '../signing/keyset.js';
import type { PublicJwk } from '../signing/schemas.js';
import { currentEnvelope } from './operations/current-envelope.js';
import type { Directives, DirectivesBody, DirectivesConfig } from './schemas.js';
import { readDirectives, writeDirectives, type DirectivesRow } from './store.js';

export const CLIENT_TYPES = ['service-desktop', 'service-cli', 'service-cloud-ui'] as const;

export interface EnvelopeRequest {
  clientType: string | undefined;
  clientVersion: string | undefined;
  ifNoneMatch: string | undefined;
}

export type EnvelopeAnswer = { status: 200; body: string; etag: string } | { status: 304; etag: string };

export interface ClientConfigService {
  envelope(request: EnvelopeRequest): Promise<EnvelopeAnswer>;
  getDirectives(actor: Actor): Promise<{ directives: Directives; etag: string }>;
  putDirectives(actor: Actor, body: DirectivesBody, ifMatch: string | undefined): Promise<{ directives: Directives; etag: string }>;
  /** Every public key of the signing set, as a JWKS. */
  jwks(): { keys: PublicJwk[] };
}

export interface ClientConfigServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  signing: SigningKeySet | undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function present(row: DirectivesRow): Directives {
  return { config: row.config, refresh_interval: row.refresh_interval, validity: row.validity, updated_at: row.updated_at?.toISOString() ?? null };
}

const etagOf = (row: DirectivesRow) => `"${createHash('sha256').update(`${row.revision}:${row.updated_at?.toISOString() ?? ''}`).digest('hex').slice(0, 32)}"`;

/** `If-None-Match`: quoted or bare, a list, weak (W/) or `*` (RFC 9110 §13.1.2). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = etag.replace(/^"|"$/g, '');
  return header.split(',').some((candidate) => {
    const value = candidate.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return value === '*' || value === bare;
  });
}

/** A Go duration between `min` and `max`, rendered in its largest whole unit. */
function duration(key: string, text: string, min: number, max: number, range: string): number {
  const ms = /d/.test(text) ? undefined : parseDuration(text);
  if (ms === undefined) throw new InvalidInputError(`${key}: "${text}" is not a Go duration (examples: 90s, 30m, 1h30m)`);
  if (ms < min || ms > max) throw new InvalidInputError(`${key}: must be between ${range}`);
  return ms;
}

function checkConfig(config: DirectivesConfig): void {
  const pem = config.ca_certificate?.value.pem;
  if (pem !== undefined) {
    try {
      new X509Certificate(pem);
    } catch {
      throw new InvalidInputError('config.ca_certificate.value.pem: is not an X.509 certificate in PEM');
    }
  }
  const grace = config.degraded_mode?.value.grace_period;
  if (grace !== undefined && parseDuration(grace) === undefined) throw new InvalidInputError(`config.degraded_mode.value.grace_period: "${grace}" is not a Go duration`);
}

export function createClientConfigService(options: ClientConfigServiceOptions): ClientConfigService {
  const { db, clock, signing } = options;
  return {
    async envelope(request) {
      if (request.clientType === undefined || !(CLIENT_TYPES as readonly string[]).includes(request.clientType)) {
        throw new InvalidInputError(`X-Client-Type: required, one of ${CLIENT_TYPES.join(', ')}`);
      }
      const version = request.clientVersion;
      if (version === undefined || validVersion(version) !== version) throw new InvalidInputError('X-Client-Version: required, a SemVer 2.0.0 version without "v" (example: 1.4.2)');
      if (!signing) throw new UnavailableError('the configuration cannot be signed: no signing key is configured (signing.keys)');
      const envelope = await currentEnvelope(db, { signer: signing.active, now: clock.now(), ids: options.ids });
      const etag = `"${envelope.etag}"`;
      if (noneMatch(request.ifNoneMatch, etag)) return { status: 304, etag };
      return { status: 200, body: envelope.body, etag };
    },
    async getDirectives() {
      const row = await readDirectives(db);
      return { directives: present(row), etag: etagOf(row) };
    },
    async putDirectives(actor, body, ifMatch) {
      if (ifMatch === undefined) throw new PreconditionRequiredError('If-Match: required; GET /v1/configuration/directives and send its ETag');
      const refreshText = body.refresh_interval ?? '1h';
      const validityText = body.validity ?? '168h';
      const refresh = duration('refresh_interval', refreshText, MINUTE, 24 * HOUR, '1m and 24h');
      const validity = duration('validity', validityText, HOUR, 2160 * HOUR, '1h and 2160h');
      if (validity < 2 * refresh) throw new InvalidInputError(`validity: must be at least twice refresh_interval (${formatDuration(2 * refresh)})`);
      checkConfig(body.config);
      return db.transaction().execute(async (trx) => {
        const before = await readDirectives(trx, { lock: true });
        const current = etagOf(before);
        if (ifMatch.trim() !== '*' && ifMatch.split(',').every((tag) => tag.trim() !== current)) {
          throw new PreconditionFailedError('If-Match: the directives changed since you read them; GET them again', { etag: current });
        }
        const after: DirectivesRow = {
          id: 1,
          config: body.config,
          refresh_interval: formatDuration(refresh),
          validity: formatDuration(validity),
          revision: before.revision + 1,
          updated_at: clock.now(),
        };
        await writeDirectives(trx, after);
        await options.audit.record(trx, { actor, action: 'configuration.directives.replace', targetType: 'configuration', targetId: 'directives', before: present(before), after: present(after) });
        return { directives: present(after), etag: etagOf(after) };
      });
    },
    jwks() {
      return { keys: signing?.keys.map((key) => key.publicJwk) ?? [] };
    },
  };
}
