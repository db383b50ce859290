/**
 * The data set of bench/ai-policies.ts: 10,000 AIPolicy objects as operators write them, and the callers
 * whose claims the admission check is asked about. Deterministic, so runs compare.
 *
 * Labels: team=team-N (100 teams), tier gold/silver/bronze, env prod/staging/dev on three in four, one
 * policy in twenty without labels. Gateways: nine in ten name the configured one. Principal matchers, by
 * policy number modulo 5: a team group; a team group or its lead's email; one user by subject; an admin
 * group of a second identity provider, a service subject or an on-call address; a user of the first
 * provider by issuer and subject (sub is unique only per issuer) or a team's admin group.
 */
import { Kysely, sql } from 'kysely';
import type { PlatformDatabase } from '../src/platform/db.js';
import { statusFor } from '../src/platform/ai-policies/present.js';
import { policyViolations } from '../src/platform/ai-policies/validate.js';

export const POLICIES = 10_000;
export const GATEWAY = 'toolyard';
const OTHER_GATEWAY = 'edge';
const TEAMS = 100;
const TIERS = ['gold', 'silver', 'bronze'] as const;
const ENVS = ['prod', 'staging', 'dev'] as const;
export const ISSUER = 'https://idp.example.com';
const SECOND_ISSUER = 'https://partners.example.net';

export interface PolicyBody {
  apiVersion: 'toolyard.dev/v1alpha1';
  kind: 'AIPolicy';
  metadata: { name: string; labels?: Record<string, string> };
  spec: { description: string; gatewayRef: { name: string }; mcpPolicy: { servers: string[] }; principalMatchers: { claims: Record<string, string> }[] };
}

const teamOf = (index: number) => index % TEAMS;
/** A well-spread number from the policy number, one per attribute, so that attributes do not go together. */
const mix = (index: number, attribute: number) => (Math.imul(index + attribute * 7_919, 2_654_435_761) >>> 0) % 1_000_003;
const kindOf = (index: number) => mix(index, 1) % 5;
const gatewayOf = (index: number) => (mix(index, 6) % 10 === 0 ? OTHER_GATEWAY : GATEWAY);

function matchersOf(index: number): Record<string, string>[] {
  const team = teamOf(index);
  switch (kindOf(index)) {
    case 0:
      return [{ groups: `team-${team}` }];
    case 1:
      return [{ groups: `team-${team}` }, { email: `lead-${team}@example.com` }];
    case 2:
      return [{ sub: `user-${index}` }];
    case 3:
      return [{ iss: SECOND_ISSUER, groups: `team-${team}-admins` }, { sub: `svc-${index}` }, { email: `oncall-${team}@example.com` }];
    default:
      return [{ iss: ISSUER, sub: `user-${index % 3_000}` }, { groups: `team-${team}-admins` }];
  }
}

export function policyBody(index: number): PolicyBody {
  const team = teamOf(index);
  const labels: Record<string, string> =
    mix(index, 5) % 20 === 0 ? {} : { team: `team-${team}`, tier: TIERS[mix(index, 2) % 3] ?? 'gold', ...(mix(index, 3) % 4 !== 0 && { env: ENVS[mix(index, 4) % 3] ?? 'prod' }) };
  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'AIPolicy',
    metadata: { name: `policy-${String(index).padStart(5, '0')}`, ...(Object.keys(labels).length > 0 && { labels }) },
    spec: {
      description: `models and servers for team-${team} (${kindOf(index) === 2 ? 'one user' : 'team access'})`,
      gatewayRef: { name: gatewayOf(index) },
      mcpPolicy: { servers: [`server-${index % 50}`, `server-${50 + (mix(index, 7) % 50)}`] },
      principalMatchers: matchersOf(index).map((claims) => ({ claims })),
    },
  };
}

/**
 * The policies as the database backend would have stored them, straight into ai_policies (creating
 * 10,000 through the API one transaction each would take minutes on the embedded database); each body
 * passes the API's own validation first.
 */
export async function seedPolicies(db: Kysely<PlatformDatabase>, now: Date): Promise<void> {
  const batch = 500;
  for (let first = 0; first < POLICIES; first += batch) {
    const rows = [];
    for (let index = first; index < Math.min(POLICIES, first + batch); index++) {
      const body = policyBody(index);
      const { violations } = policyViolations(body as unknown as Record<string, unknown>);
      if (violations.length > 0) throw new Error(`${body.metadata.name} would be refused: ${JSON.stringify(violations)}`);
      const status = statusFor(GATEWAY, { generation: 1, gatewayName: body.spec.gatewayRef.name }, undefined, now);
      rows.push({
        name: body.metadata.name,
        uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
        resource_version: sql<string>`nextval('ai_policy_resource_versions')`,
        generation: 1,
        creation_timestamp: now,
        gateway_name: body.spec.gatewayRef.name,
        labels: JSON.stringify(body.metadata.labels ?? {}),
        annotations: '{}',
        spec: JSON.stringify(body.spec),
        status: JSON.stringify(status),
      });
    }
    await db.insertInto('ai_policies').values(rows).execute();
  }
}

export type CallerKind = 'onePolicy' | 'severalPolicies' | 'noPolicy' | 'manyGroups';
export const CALLER_KINDS: CallerKind[] = ['onePolicy', 'severalPolicies', 'noPolicy', 'manyGroups'];
const CALLERS_PER_KIND = 500;

/** The claims of a caller's token: a few standard members besides the ones policies match on. */
function token(claims: { iss: string; sub: string; email: string; groups: string[] }): Record<string, unknown> {
  return { ...claims, aud: 'toolyard-ai-gateway', preferred_username: claims.sub, email_verified: true, iat: 1_764_000_000, exp: 1_764_003_600 };
}

/** Distinct callers of each kind, so that nothing per caller could be remembered between calls. */
export function callers(): Record<CallerKind, Record<string, unknown>[]> {
  const many = (n: number) => Array.from({ length: n }, (_, index) => index);
  return {
    // user-N of a policy naming one user by subject, from a third issuer, so no issuer-bound matcher applies
    onePolicy: many(POLICIES)
      .filter((index) => kindOf(index) === 2 && gatewayOf(index) === GATEWAY)
      .slice(0, CALLERS_PER_KIND)
      .map((index) => token({ iss: 'https://sso.example.org', sub: `user-${index}`, email: `person-${index}@example.org`, groups: ['staff'] })),
    // a team lead: the team's group, the lead address, a user of the first issuer
    severalPolicies: many(CALLERS_PER_KIND).map((n) => {
      const team = n % TEAMS;
      return token({ iss: ISSUER, sub: `user-${(n * 37) % 3_000}`, email: `lead-${team}@example.com`, groups: [`team-${team}`, 'staff'] });
    }),
    noPolicy: many(CALLERS_PER_KIND).map((n) => token({ iss: ISSUER, sub: `contractor-${n}`, email: `contractor-${n}@vendor.example`, groups: ['contractors', 'staff'] })),
    // an enterprise directory's token: 60 groups, a few of them teams and admin groups
    manyGroups: many(CALLERS_PER_KIND).map((n) => {
      const groups = many(60).map((g) => (g % 20 === 0 ? `team-${(n + g) % TEAMS}` : g % 20 === 1 ? `team-${(n + g) % TEAMS}-admins` : `dept-${(n * 3 + g) % 400}`));
      return token({ iss: ISSUER, sub: `employee-${n}`, email: `employee-${n}@example.com`, groups });
    }),
  };
}
