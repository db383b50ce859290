/**
 * The admission check of bench/ai-policies.ts: the gateways' `admitModel(enforcement.decide(claims))`
 * against the loaded policies, and the naive check beside it in the same run: every enforced policy's
 * matchers tried in turn by the same claim rule (what the index saves). Both must name the same policies
 * for every caller before anything is timed.
 */
import { performance } from 'node:perf_hooks';
import { isVisible } from '../src/core/auth/claims.js';
import type { StoredPolicy } from '../src/platform/ai-policies/backend.js';
import { admitModel, claimsForMatching, type AiDecision, type AiEnforcement, type EnforcedPolicy } from '../src/platform/ai-policies/enforcement.js';
import { CALLER_KINDS, type CallerKind } from './ai-policies-data.js';

const SLICES = 10;
/** The naive check costs milliseconds a call with many groups: it gets this share of the calls. */
const NAIVE_SHARE = 1 / 100;
const LOADS = 5;

export interface CallFigures {
  calls: number;
  meanMicros: number;
  p50Micros: number;
  p99Micros: number;
  /** Policies matched per call, on average. */
  matchedMean: number;
}

type Figures = Record<CallerKind | 'all', CallFigures>;

export interface AdmissionFigures {
  enforced: number;
  /** The median time to compile the enforcement set from every policy (on each change). */
  loadMs: number;
  indexed: Figures;
  naive: Figures;
}

type Check = (claims: Readonly<Record<string, unknown>>) => { matched: number; allowed: boolean };

function naiveCheck(policies: readonly StoredPolicy[], gateway: string): Check {
  const enforced: EnforcedPolicy[] = policies
    .filter((policy) => policy.spec.gatewayRef.name === gateway)
    .map((policy) => ({ name: policy.name, description: policy.spec.description ?? '', servers: policy.spec.mcpPolicy?.servers ?? [], matchers: policy.spec.principalMatchers.map((matcher) => matcher.claims) }));
  return (claims) => {
    const held = claimsForMatching(claims);
    const matched = enforced.filter((policy) => policy.matchers.some((matcher) => isVisible(matcher, held)));
    const names = new Set(matched.flatMap((policy) => policy.servers));
    const decision: AiDecision = { governed: true, matched, unrestrictedModels: matched.length > 0, servers: names.has('*') ? { every: true } : { every: false, names } };
    const admission = admitModel(decision, gateway);
    return { matched: admission.aiPolicy.policies.length, allowed: admission.allowed };
  };
}

function summarize(times: Float64Array, count: number, matched: number): CallFigures {
  const sorted = times.slice(0, count).sort();
  const at = (p: number) => (sorted[Math.max(0, Math.ceil(p * count) - 1)] ?? Number.NaN) * 1000;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  const round = (value: number) => Math.round(value * 100) / 100;
  return { calls: count, meanMicros: round((total / count) * 1000), p50Micros: round(at(0.5)), p99Micros: round(at(0.99)), matchedMean: round(matched / count) };
}

export function measureAdmission(options: {
  enforcement: AiEnforcement;
  policies: readonly StoredPolicy[];
  gateway: string;
  callers: Record<CallerKind, Record<string, unknown>[]>;
  calls: number;
}): AdmissionFigures {
  const { enforcement, gateway } = options;
  const loads: number[] = [];
  for (let load = 0; load < LOADS; load++) {
    const began = performance.now();
    enforcement.load(options.policies);
    loads.push(performance.now() - began);
  }
  const indexed: Check = (claims) => {
    const admission = admitModel(enforcement.decide(claims), gateway);
    return { matched: admission.aiPolicy.policies.length, allowed: admission.allowed };
  };
  const naive = naiveCheck(options.policies, gateway);
  const enforced = options.policies.filter((policy) => policy.spec.gatewayRef.name === gateway).length;

  for (const kind of CALLER_KINDS) {
    for (const claims of options.callers[kind]) {
      const fast = enforcement.decide(claims).matched.map((policy) => policy.name);
      const held = claimsForMatching(claims);
      const slow = options.policies.filter((policy) => policy.spec.gatewayRef.name === gateway && policy.spec.principalMatchers.some((matcher) => isVisible(matcher.claims, held))).map((policy) => policy.name);
      if (fast.join() !== slow.join()) throw new Error(`the admission check and the naive scan disagree for ${JSON.stringify(claims)}: ${fast.join()} / ${slow.join()}`);
    }
  }

  const ways = { indexed: { check: indexed, calls: options.calls }, naive: { check: naive, calls: Math.max(SLICES, Math.round(options.calls * NAIVE_SHARE)) } };
  const state = Object.fromEntries(
    (['indexed', 'naive'] as const).flatMap((way) => CALLER_KINDS.map((kind) => [`${way}/${kind}`, { times: new Float64Array(ways[way].calls), count: 0, matched: 0, next: 0 }])),
  );
  // what the calls answered, so that none of them can be left out
  let allowed = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    for (const kind of CALLER_KINDS) {
      const order = slice % 2 === 0 ? (['indexed', 'naive'] as const) : (['naive', 'indexed'] as const);
      for (const way of order) {
        const figures = state[`${way}/${kind}`];
        const pool = options.callers[kind];
        if (!figures) continue;
        const until = Math.round(((slice + 1) * ways[way].calls) / SLICES);
        for (; figures.count < until; figures.count++) {
          const claims = pool[figures.next] ?? {};
          figures.next = (figures.next + 1) % pool.length;
          const began = performance.now();
          const answer = ways[way].check(claims);
          figures.times[figures.count] = performance.now() - began;
          figures.matched += answer.matched;
          if (answer.allowed) allowed++;
        }
      }
    }
  }
  if (allowed === 0) throw new Error('no call was admitted');

  const figuresOf = (way: 'indexed' | 'naive'): Figures => {
    const all = new Float64Array(ways[way].calls * CALLER_KINDS.length);
    let offset = 0;
    let matched = 0;
    const perKind = {} as Record<CallerKind, CallFigures>;
    for (const kind of CALLER_KINDS) {
      const figures = state[`${way}/${kind}`];
      if (!figures) continue;
      perKind[kind] = summarize(figures.times, figures.count, figures.matched);
      all.set(figures.times.subarray(0, figures.count), offset);
      offset += figures.count;
      matched += figures.matched;
    }
    return { ...perKind, all: summarize(all, offset, matched) };
  };
  const sortedLoads = [...loads].sort((a, b) => a - b);
  return { enforced, loadMs: Math.round((sortedLoads[Math.floor(LOADS / 2)] ?? Number.NaN) * 10) / 10, indexed: figuresOf('indexed'), naive: figuresOf('naive') };
}
