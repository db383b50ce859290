import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
// the API server applies RFC 7396 as the product does; merge-patch.test.ts holds the RFC's own cases
import { applyMergePatch, jsonEqual } from '../../src/platform/ai-policies/merge-patch.js';
import { isJsonObject } from '../../src/core/json-object.js';

/*
 * How the fake API server changes objects, as a real one does for a custom resource with the status
 * subresource: maintained metadata, generation bumped on spec changes only, resourceVersion
 * preconditions, finalizers holding a delete, and Status bodies for every refusal.
 */

export interface FakeMetadata {
  name: string;
  namespace: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  resourceVersion?: string;
  uid?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
}

export interface FakeObject {
  apiVersion?: string;
  kind?: string;
  metadata: FakeMetadata;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  /** A Secret's values, base64 as the API gives them. */
  data?: Record<string, string>;
}

export interface StatusCause {
  field?: string;
  message: string;
  reason?: string;
}

/** A refusal the fake answers with a Kubernetes Status body. */
export interface FakeFailure {
  code: number;
  reason: string;
  message?: string;
  causes?: StatusCause[];
}

export class FakeStatusError extends Error {
  constructor(readonly failure: FakeFailure) {
    super(failure.message ?? failure.reason);
  }
}

export function statusBody(failure: FakeFailure): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: failure.message ?? failure.reason,
    reason: failure.reason,
    ...(failure.causes && { details: { causes: failure.causes } }),
    code: failure.code,
  };
}

/** The stored object after a write: the next resourceVersion, and the event the watches get. */
export interface Written {
  object: FakeObject;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
}

export const sameJson = jsonEqual;

/** Kubernetes timestamps have whole seconds. */
export const kubeNow = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const notFound = (plural: string, name: string) => new FakeStatusError({ code: 404, reason: 'NotFound', message: `${plural} "${name}" not found` });
const conflict = (plural: string, name: string) =>
  new FakeStatusError({ code: 409, reason: 'Conflict', message: `Operation cannot be fulfilled on ${plural} "${name}": the object has been modified; please apply your changes to the latest version and try again` });

const MAINTAINED = ['name', 'namespace', 'uid', 'creationTimestamp', 'generation', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const;

function checkVersion(current: FakeObject, expected: unknown, plural: string): void {
  if (expected !== undefined && expected !== null && expected !== current.metadata.resourceVersion) throw conflict(plural, current.metadata.name);
}

/** POST: a new object with its maintained metadata; the status subresource keeps status out of a create. */
export function created(body: unknown, namespace: string, existing: FakeObject | undefined, plural: string): FakeObject {
  if (!isJsonObject(body) || !isJsonObject(body.metadata) || typeof body.metadata.name !== 'string' || body.metadata.name === '') {
    throw new FakeStatusError({ code: 422, reason: 'Invalid', message: 'metadata.name: Required value', causes: [{ field: 'metadata.name', message: 'Required value', reason: 'FieldValueRequired' }] });
  }
  const name = body.metadata.name;
  if (existing) throw new FakeStatusError({ code: 409, reason: 'AlreadyExists', message: `${plural} "${name}" already exists` });
  const given = body as unknown as FakeObject;
  const metadata = Object.fromEntries(Object.entries(given.metadata).filter(([key]) => !(MAINTAINED as readonly string[]).includes(key)));
  const object: FakeObject = { ...given, metadata: { ...metadata, name, namespace, uid: randomUUID(), creationTimestamp: kubeNow(), generation: 1 } };
  return Object.fromEntries(Object.entries(object).filter(([key]) => key !== 'status')) as unknown as FakeObject;
}

/**
 * PATCH (merge patch) of the main resource or of `/status`: a metadata.resourceVersion in the patch is a
 * precondition; the main resource ignores status and maintained metadata, /status changes only status.
 * Undefined when nothing changes (the API server then writes nothing).
 */
export function patched(current: FakeObject, patch: unknown, subresource: 'main' | 'status', plural: string): FakeObject | undefined {
  if (!isJsonObject(patch)) throw new FakeStatusError({ code: 400, reason: 'BadRequest', message: 'the patch must be a JSON object' });
  checkVersion(current, isJsonObject(patch.metadata) ? patch.metadata.resourceVersion : undefined, plural);
  const merged = applyMergePatch(current, patch) as FakeObject;
  let next: FakeObject;
  if (subresource === 'status') {
    next = { ...current, ...(merged.status !== undefined && { status: merged.status }) };
    if (merged.status === undefined) delete next.status;
  } else {
    const given = Object.entries(merged.metadata).filter(([key]) => !(MAINTAINED as readonly string[]).includes(key));
    const kept = MAINTAINED.flatMap((key) => (current.metadata[key] === undefined ? [] : [[key, current.metadata[key]] as const]));
    next = { ...merged, metadata: Object.fromEntries([...given, ...kept]) as unknown as FakeMetadata };
    if (current.status === undefined) delete next.status;
    else next.status = current.status;
    if (!sameJson(current.spec, next.spec)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
  }
  return sameJson(current, next) ? undefined : next;
}

/**
 * DELETE with optional preconditions.resourceVersion: an object held by finalizers gets its
 * deletionTimestamp (and, as for every object with a generation, a generation bump) and stays.
 */
export function deleted(current: FakeObject, options: unknown, plural: string): { kind: 'held'; object: FakeObject | undefined } | { kind: 'gone' } {
  const preconditions = isJsonObject(options) && isJsonObject(options.preconditions) ? options.preconditions : {};
  checkVersion(current, preconditions.resourceVersion, plural);
  if ((current.metadata.finalizers ?? []).length === 0) return { kind: 'gone' };
  if (current.metadata.deletionTimestamp !== undefined) return { kind: 'held', object: undefined };
  const generation = current.metadata.generation === undefined ? undefined : current.metadata.generation + 1;
  return {
    kind: 'held',
    object: { ...current, metadata: { ...current.metadata, deletionTimestamp: kubeNow(), deletionGracePeriodSeconds: 0, ...(generation !== undefined && { generation }) } },
  };
}

/** A held object whose last finalizer was removed is deleted by the API server. */
export const released = (object: FakeObject) => object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).length === 0;

export { conflict, notFound };

/** A request's JSON body (undefined when empty); malformed JSON is the API server's 400. */
export async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FakeStatusError({ code: 400, reason: 'BadRequest', message: 'the request body is not valid JSON' });
  }
}
