import type { KubeConfig } from '@kubernetes/client-node';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { NotFoundError, PreconditionFailedError, UnavailableError } from '../../core/errors.js';
import type { AuditTrail } from '../audit/service.js';
import type { PlatformDatabase } from '../db.js';
import { sharedPageTokenKey, type AiPolicyBackend, type StoredPolicy, type WriteNote } from './backend.js';
import { createPolicyApi, describeFailure, failureOf, isVersionConflict, type PolicyApi } from './kubernetes-api.js';
import { createPolicyCache } from './kubernetes-cache.js';
import { clusterProblems, createBody, statusDue, storedOf, type KubePolicy } from './kubernetes-objects.js';
import { startPolicyWatch } from './kubernetes-watch.js';
import { mergePatchBetween } from './merge-patch.js';
import { etagOf, ifMatchHolds } from './preconditions.js';
import { statusFor } from './present.js';
import type { PolicyStatus } from './schemas.js';

export interface KubernetesBackendOptions {
  kubeConfig: KubeConfig;
  /** `aiGateway.gateway`: the policies live in its namespace; status is written for those naming it. */
  gateway: { name: string; namespace: string };
  /** The platform database keeps the audit records and the page token key. */
  db: Kysely<PlatformDatabase>;
  audit: AuditTrail;
  clock: Clock;
  logger: Logger;
  /** How long one API server request may take before it counts as unreachable. */
  requestTimeoutMs?: number;
}

export interface KubernetesBackend extends AiPolicyBackend {
  /** Resolves once the first list has succeeded or failed. */
  firstList: Promise<void>;
  stop(): Promise<void>;
}

const anyVersion = (ifMatch: string) => ifMatch.split(',').some((entry) => entry.trim() === '*');
const isPolicy = (answer: unknown): answer is KubePolicy => typeof answer === 'object' && answer !== null && (answer as { kind?: unknown }).kind === 'AIPolicy';

/**
 * AI policies as AIPolicy custom resources in the gateway's namespace (PLATFORM-API Part 5, rule 12).
 * Writes go to the API server with its preconditions; the list+watch keeps the copy the view reads;
 * objects written to Kubernetes directly get their status from here; audit records and the page token
 * key stay in the platform database.
 */
export function createKubernetesBackend(options: KubernetesBackendOptions): KubernetesBackend {
  const { gateway, db, audit, clock, logger } = options;
  const api: PolicyApi = createPolicyApi(options.kubeConfig, gateway.namespace, options.requestTimeoutMs ?? 10_000);
  const cache = createPolicyCache();
  const handlers: (() => void)[] = [];
  const notify = () => handlers.forEach((handler) => handler());
  let listed = false;
  let lost: string | undefined;
  // names this replica is writing: the status it writes itself makes reconciling them pointless
  const writing = new Map<string, number>();
  const reconciling = new Set<string>();

  const call = async <T>(work: () => Promise<T>, name: string): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!isVersionConflict(error)) throw failureOf(error, name);
      const current = await api.get(name).then(storedOf, () => undefined);
      throw new PreconditionFailedError(
        `If-Match: the AI policy "${name}" changed since you read it${current ? ` (now ${etagOf(current.resourceVersion)})` : ''}; GET it again`,
        current ? { etag: etagOf(current.resourceVersion) } : {},
      );
    }
  };
  const read = async (name: string) => storedOf(await call(() => api.get(name), name));
  const checkIfMatch = (ifMatch: string, current: StoredPolicy) => {
    if (ifMatchHolds(ifMatch, current.resourceVersion)) return;
    throw new PreconditionFailedError(`If-Match: the AI policy "${current.name}" changed since you read it (now ${etagOf(current.resourceVersion)}); GET it again`, {
      etag: etagOf(current.resourceVersion),
    });
  };
  const guardWrite = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    writing.set(name, (writing.get(name) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (writing.get(name) ?? 1) - 1;
      if (left === 0) writing.delete(name);
      else writing.set(name, left);
    }
  };
  const record = (note: WriteNote, name: string, states: { before?: StoredPolicy; after?: StoredPolicy }) =>
    audit.record(db, { actor: note.actor, action: note.action, targetType: 'ai_policy', targetId: name, ...states }).catch((error: unknown) => {
      logger.error({ err: error, policy: name }, 'the AI policy write is done in Kubernetes but its audit record could not be written');
      throw new UnavailableError('the AI policy was written, but its audit record could not be: the platform database cannot be reached');
    });

  const statusOf = (object: KubePolicy, previous: PolicyStatus | undefined, problems: string[] = []) => {
    const policy = storedOf(object);
    const facts = { generation: policy.generation, gatewayName: policy.spec.gatewayRef.name, problems, deleting: policy.deletionTimestamp !== undefined };
    return statusFor(gateway.name, facts, previous, clock.now());
  };

  /**
   * Writes this server's status in the same write as the change (section 2.4), conditional on the
   * version just written: when something overtook it, the current object is the answer and the
   * watch brings its status.
   */
  const withStatus = async (object: KubePolicy, previous: PolicyStatus | undefined): Promise<KubePolicy> => {
    const policy = storedOf(object);
    if (policy.spec.gatewayRef.name !== gateway.name) return object;
    try {
      return await api.patchStatus(policy.name, { metadata: { resourceVersion: policy.resourceVersion }, status: statusOf(object, previous) });
    } catch (error) {
      if (!isVersionConflict(error)) throw failureOf(error, policy.name);
      return call(() => api.get(policy.name), policy.name);
    }
  };

  /** Status for an object written to Kubernetes directly (kubectl, GitOps), conditional on the version seen. */
  const reconcile = (object: KubePolicy) => {
    const name = object.metadata?.name ?? '';
    if (!statusDue(object, gateway.name) || writing.has(name) || reconciling.has(name)) return;
    reconciling.add(name);
    const status = statusOf(object, storedOf(object).status, clusterProblems(object));
    api
      .patchStatus(name, { metadata: { resourceVersion: object.metadata?.resourceVersion }, status })
      .catch((error: unknown) => {
        // a newer version is on its way through the watch, or the object is gone
        if (!isVersionConflict(error) && failureOf(error, name).status !== 404) logger.warn({ policy: name, reason: describeFailure(error) }, 'cannot write the status of an AI policy');
      })
      .finally(() => reconciling.delete(name));
  };

  const watch = startPolicyWatch({
    kubeConfig: options.kubeConfig,
    api,
    logger,
    onList(items) {
      cache.replace(items.map(storedOf));
      listed = true;
      lost = undefined;
      items.forEach(reconcile);
      notify();
    },
    onEvent(type, object) {
      if (type === 'DELETED') cache.removed(object.metadata?.name ?? '');
      else {
        cache.watched(storedOf(object));
        reconcile(object);
      }
      notify();
    },
    onLost(reason) {
      lost = reason;
      notify();
    },
  });

  const answered = (object: KubePolicy) => {
    const stored = storedOf(object);
    cache.answered(stored);
    return stored;
  };

  return {
    firstList: watch.firstList,
    stop: () => watch.stop(),
    async get(name) {
      try {
        return await read(name);
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    create: (policy, note) =>
      guardWrite(policy.name, async () => {
        const created = await call(() => api.create(createBody(policy)), policy.name);
        let answer = created;
        try {
          answer = await withStatus(created, undefined);
        } finally {
          await record(note, policy.name, { after: answered(answer) });
        }
        return storedOf(answer);
      }),
    update: (name, ifMatch, change, note) =>
      guardWrite(name, async () => {
        const current = await read(name);
        checkIfMatch(ifMatch, current);
        const next = change(current);
        if (!next) return current;
        const patch = {
          ...(!anyVersion(ifMatch) && { metadata: { resourceVersion: current.resourceVersion } }),
          spec: mergePatchBetween(current.spec, next.spec),
        };
        const patched = await call(() => api.patch(name, patch), name);
        let answer = patched;
        try {
          answer = await withStatus(patched, current.status);
        } finally {
          await record(note, name, { before: current, after: answered(answer) });
        }
        return storedOf(answer);
      }),
    delete: (name, ifMatch, note) =>
      guardWrite(name, async () => {
        const current = await read(name);
        checkIfMatch(ifMatch, current);
        const answer = await call(() => api.delete(name, anyVersion(ifMatch) ? undefined : current.resourceVersion), name);
        // held by finalizers, it stays listed (not enforced) until they are removed
        if (isPolicy(answer) && answer.metadata?.deletionTimestamp !== undefined) answered(answer);
        else cache.removed(name);
        await record(note, name, { before: current });
      }),
    changesSince(position) {
      if (!listed) return Promise.reject(new UnavailableError('the AI policies are not listed from Kubernetes yet; try again shortly'));
      if (lost !== undefined) return Promise.reject(new UnavailableError(`the Kubernetes API server cannot be reached (${lost}); try again shortly`));
      return Promise.resolve(cache.changesSince(position));
    },
    onChange: (handler) => handlers.push(handler),
    pageTokenKey: () => sharedPageTokenKey(db),
  };
}
