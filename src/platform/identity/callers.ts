import type { Kysely } from 'kysely';
import type { VerifiedToken } from '../../core/auth/token-verifier.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { UnauthenticatedError } from '../../core/errors.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { ANONYMOUS_SUBJECT, type Actor } from './actor.js';
import type { IdentityResolver } from './resolver.js';
import { findUser, groupsOfUser } from './store.js';
import type { GatewayPrincipal } from '../keys/gateway-auth.js';
import { keyOwnerClaims } from '../ai-policies/enforcement.js';

/** Who a gateway request is for (checks 2–3 passed): the directory user, its groups, and the OIDC subject its charges carry. */
export interface GatewayCaller {
  userId: string;
  subject: string;
  issuer: string | null;
  /** Direct and transitive groups, sorted. */
  groupIds: string[];
  /** The same groups with their names (the tool-call usage record carries them). */
  groups: { id: string; name: string }[];
  email: string | null;
  /** The virtual key used; null for a token. */
  keyId: string | null;
  /** What AI policies match (PLATFORM-API Part 5 rule 13): a token's claims, a key owner's directory record. */
  claims: Readonly<Record<string, unknown>>;
}

export type CallerVerdict = { ok: true; caller: GatewayCaller } | { ok: false; code: 'no_directory_user' | 'user_inactive'; detail: string };

export interface CallerIdentities {
  /** Check 3 of admission for an authenticated principal; usually answered from memory. */
  resolve(principal: GatewayPrincipal): Promise<CallerVerdict>;
  /** The anonymous trial user (anonymous mode, a request without a credential). */
  anonymous(): Promise<CallerVerdict>;
}

export interface CallerIdentitiesOptions {
  db: Kysely<PlatformDatabase>;
  changes: ChangeFeed;
  identity: IdentityResolver;
}

interface Member {
  userId: string;
  userName: string;
  active: boolean;
  email: string | null;
  groups: { id: string; name: string }[];
}

/** Past this many remembered callers the memory starts over (it only saves database reads). */
const MAX_REMEMBERED = 100_000;
/** The memory's key for the anonymous trial user (no token binding looks like it). */
const ANONYMOUS_KEY = '\u0000anonymous';
/** The anonymous trial user's claims for AI policies (rule 13). */
const ANONYMOUS_CLAIMS = Object.freeze({ sub: ANONYMOUS_SUBJECT });

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
    const member = { userId, userName: user.user_name, active: user.active, email: user.email, groups: await groupsOfUser(db, userId) };
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
    const member = { userId: resolved.user.id, userName: resolved.user.user_name, active: resolved.user.active, email: resolved.user.email, groups: await groupsOfUser(db, resolved.user.id) };
    remember(byToken, key, member, since);
    return member;
  };

  const callerOf = (member: Member, subject: string, issuer: string | null, keyId: string | null, claims: Readonly<Record<string, unknown>>): GatewayCaller => ({
    userId: member.userId,
    subject,
    issuer,
    groupIds: member.groups.map((group) => group.id),
    groups: member.groups,
    email: member.email,
    keyId,
    claims,
  });

  return {
    async anonymous() {
      let member = byToken.get(ANONYMOUS_KEY);
      if (!member) {
        const since = generation;
        const actor: Actor = { kind: 'anonymous', issuer: null, subject: ANONYMOUS_SUBJECT, claims: {}, provider: null, roles: new Set(), requestId: null };
        const resolved = await identity.resolve(actor);
        member = { userId: resolved.user.id, userName: resolved.user.user_name, active: resolved.user.active, email: resolved.user.email, groups: await groupsOfUser(db, resolved.user.id) };
        remember(byToken, ANONYMOUS_KEY, member, since);
      }
      if (!member.active) return { ok: false, code: 'user_inactive', detail: 'the anonymous user is inactive in the directory' };
      return { ok: true, caller: callerOf(member, ANONYMOUS_SUBJECT, null, null, ANONYMOUS_CLAIMS) };
    },
    async resolve(principal) {
      if (principal.kind === 'key') {
        const { key } = principal;
        const member = await memberOfUser(key.ownerUserId);
        if (!member) return { ok: false, code: 'no_directory_user', detail: `the owner of the API key ${key.keyId} is no longer in the directory` };
        if (!member.active) return { ok: false, code: 'user_inactive', detail: `the owner of the API key ${key.keyId} is inactive in the directory` };
        const claims = keyOwnerClaims({ issuer: key.issuer, subject: key.subject, email: member.email, userName: member.userName, groupNames: member.groups.map((group) => group.name) });
        return { ok: true, caller: callerOf(member, key.subject, key.issuer, key.keyId, claims) };
      }
      const { token } = principal;
      try {
        const member = await memberOfToken(token);
        const issuer = typeof token.claims.iss === 'string' ? token.claims.iss : null;
        return { ok: true, caller: callerOf(member, token.subject, issuer, null, token.claims) };
      } catch (error) {
        if (!(error instanceof UnauthenticatedError)) throw error;
        const inactive = /inactive/.test(error.message);
        return { ok: false, code: inactive ? 'user_inactive' : 'no_directory_user', detail: `${error.message} (subject ${JSON.stringify(token.subject)})` };
      }
    },
  };
}
