import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { UnauthenticatedError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import type { PlatformConfig } from '../config.js';
import type { PlatformDatabase } from '../db.js';
import { ANONYMOUS_SUBJECT, type Actor } from './actor.js';
import { findUserByIdentity, groupIdsOfUser, insertIdentity, insertUser, type UserRow } from './store.js';

/** The directory user a token stands for, with the groups it belongs to directly or through nesting. */
export interface DirectoryIdentity {
  user: UserRow;
  groupIds: string[];
}

export interface IdentityResolver {
  /** The actor's directory identity; 401 when it has none (and just-in-time provisioning is off) or is inactive. */
  resolve(actor: Actor): Promise<DirectoryIdentity>;
  /** Makes sure the anonymous trial user exists (anonymous mode). */
  ensureAnonymousUser(): Promise<void>;
}

export interface IdentityResolverOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  config: PlatformConfig;
  audit: AuditTrail;
}

/** The issuer under which the anonymous user's identity is kept: not a URL, so no token can claim it. */
export const LOCAL_ISSUER = 'toolyard:local';

/**
 * Identity resolution: a token's issuer and binding claim (per provider, `sub` by default) name one
 * directory user. With just-in-time provisioning a valid token without one creates it; two first
 * requests of one person at once create one user, as the identity binding is the unique key.
 */
export function createIdentityResolver(options: IdentityResolverOptions): IdentityResolver {
  const { db, clock, ids, config } = options;
  const providers = new Map((config.auth.oauth?.providers ?? []).map((provider) => [provider.name, provider]));

  const bindingOf = (actor: Actor): { issuer: string; externalId: string } => {
    if (actor.kind === 'anonymous') return { issuer: LOCAL_ISSUER, externalId: ANONYMOUS_SUBJECT };
    const provider = actor.provider === null ? undefined : providers.get(actor.provider);
    const claim = provider?.bindingClaim ?? 'sub';
    const value = actor.claims[claim];
    if (actor.issuer === null || typeof value !== 'string' || value === '') {
      throw new UnauthenticatedError(`no directory user for this token: it carries no ${claim} claim to identify its user`);
    }
    return { issuer: actor.issuer, externalId: value };
  };

  const provision = async (actor: Actor, issuer: string, externalId: string): Promise<void> => {
    const now = clock.now();
    const claim = (name: string) => {
      const value = actor.claims[name];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    const userName = claim('preferred_username') ?? claim('email') ?? externalId;
    const user = {
      id: ids.uuid(),
      user_name: userName,
      display_name: claim('name') ?? userName,
      email: claim('email') ?? null,
      photo_url: claim('picture') ?? null,
      active: true,
      source: actor.kind === 'anonymous' ? 'local' : 'jit',
      created_at: now,
      updated_at: now,
    };
    await db.transaction().execute(async (trx) => {
      await insertUser(trx, user);
      // the loser of a race rolls its user back and reads the winner's
      if (!(await insertIdentity(trx, issuer, externalId, user.id))) throw new ProvisionRace();
      await options.audit.record(trx, { actor, actorUserId: user.id, action: 'user.create', targetType: 'user', targetId: user.id, after: { ...user, created_at: now.toISOString(), updated_at: now.toISOString() } });
    }).catch((error: unknown) => {
      if (!(error instanceof ProvisionRace)) throw error;
    });
  };

  return {
    async resolve(actor) {
      const { issuer, externalId } = bindingOf(actor);
      let user = await findUserByIdentity(db, issuer, externalId);
      if (!user && (config.directory.jitProvisioning || actor.kind === 'anonymous')) {
        await provision(actor, issuer, externalId);
        user = await findUserByIdentity(db, issuer, externalId);
      }
      if (!user) throw new UnauthenticatedError('no directory user for this token');
      if (!user.active) throw new UnauthenticatedError('the directory user of this token is inactive');
      return { user, groupIds: await groupIdsOfUser(db, user.id) };
    },
    async ensureAnonymousUser() {
      const actor: Actor = { kind: 'anonymous', issuer: null, subject: ANONYMOUS_SUBJECT, claims: {}, provider: null, roles: new Set(), requestId: null };
      if (!(await findUserByIdentity(db, LOCAL_ISSUER, ANONYMOUS_SUBJECT))) await provision(actor, LOCAL_ISSUER, ANONYMOUS_SUBJECT);
    },
  };
}

class ProvisionRace extends Error {}
