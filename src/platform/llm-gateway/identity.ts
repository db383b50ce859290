import type { Kysely } from 'kysely';
import type { VerifiedToken } from '../../core/auth/token-verifier.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { UnauthenticatedError } from '../../core/errors.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { findUser, groupIdsOfUser } from '../identity/store.js';
import type { GatewayPrincipal } from '../keys/gateway-auth.js';

/** Who a gateway request is for (checks 2–3 passed): the directory user, its groups, and the OIDC subject its charges carry. */
export interface GatewayCaller {
  userId: string;
  subject: string;
  issuer: string | null;
  /** Direct and transitive groups, sorted. */
  groupIds: string[];
  /** The virtual key used; null for a token. */
  keyId: string | null;
}

export type CallerVerdict = { ok: true; caller: GatewayCaller } | { ok: false; code: 'no_directory_user' | 'user_inactive'; detail: string };

export interface CallerIdentities {
  /** Check 3 of admission for an authenticated principal; usually answered from memory. */
  resolve(principal: GatewayPrincipal): Promise<CallerVerdict>;
}

export interface CallerIdentitiesOptions {
  db: Kysely<PlatformDatabase>;
  changes: ChangeFeed;
  identity: IdentityResolver;
}

interface Member {
  userId: string;
  active: boolean;
  groupIds: string[];
}

/** Past this many remembered callers the memory starts over (it only saves database reads). */
const MAX_REMEMBERED = 100_000;

/**
 * The directory as the gateway needs it per request, kept in memory: user → active and groups, token
 * binding → user. Any user or group change anywhere (the change feed) forgets everything, so a
 * deactivation or a membership change applies from the next request after the notification; a read
 * that started before a change is not remembered.
 */
export function createCallerIdentities(options: CallerIdentitiesOptions): CallerIdentities {
  const { db, identity } = options;
  const byUser = new Map<string, Member>();
  const byToken = new Map<string, Member>();
  let generation = 0;
  const forget = () => {
    generation += 1;
    byUser.clear();
    byToken.clear();
  };
  options.changes.subscribe(TOPICS.users, forget);
  options.changes.subscribe(TOPICS.groups, forget);

  const remember = (map: Map<string, Member>, key: string, member: Member, since: number) => {
    if (since !== generation) return;
    if (map.size >= MAX_REMEMBERED) map.clear();
    map.set(key, member);
  };

  const memberOfUser = async (userId: string): Promise<Member | undefined> => {
    const known = byUser.get(userId);
    if (known) return known;
    const since = generation;
    const user = await findUser(db, userId);
    if (!user) return undefined;
    const member = { userId, active: user.active, groupIds: await groupIdsOfUser(db, userId) };
    remember(byUser, userId, member, since);
    return member;
  };

  const memberOfToken = async (token: VerifiedToken): Promise<Member> => {
    const issuer = typeof token.claims.iss === 'string' ? token.claims.iss : null;
    const key = `${token.provider}\u0000${issuer ?? ''}\u0000${token.subject}`;
    const known = byToken.get(key);
    if (known) return known;
    const since = generation;
    const resolved = await identity.resolve({ kind: 'user', issuer, subject: token.subject, claims: token.claims, provider: token.provider, roles: new Set(), requestId: null });
    const member = { userId: resolved.user.id, active: resolved.user.active, groupIds: resolved.groupIds };
    remember(byToken, key, member, since);
    return member;
  };

  return {
    async resolve(principal) {
      if (principal.kind === 'key') {
        const { key } = principal;
        const member = await memberOfUser(key.ownerUserId);
        if (!member) return { ok: false, code: 'no_directory_user', detail: `the owner of the API key ${key.keyId} is no longer in the directory` };
        if (!member.active) return { ok: false, code: 'user_inactive', detail: `the owner of the API key ${key.keyId} is inactive in the directory` };
        return { ok: true, caller: { userId: member.userId, subject: key.subject, issuer: key.issuer, groupIds: member.groupIds, keyId: key.keyId } };
      }
      const { token } = principal;
      try {
        const member = await memberOfToken(token);
        const issuer = typeof token.claims.iss === 'string' ? token.claims.iss : null;
        return { ok: true, caller: { userId: member.userId, subject: token.subject, issuer, groupIds: member.groupIds, keyId: null } };
      } catch (error) {
        if (!(error instanceof UnauthenticatedError)) throw error;
        const inactive = /inactive/.test(error.message);
        return { ok: false, code: inactive ? 'user_inactive' : 'no_directory_user', detail: `${error.message} (subject ${JSON.stringify(token.subject)})` };
      }
    },
  };
}
