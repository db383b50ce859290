import type { Claims, EntryType } from '../../tables.js';
import { isJsonObject } from '../../../core/json-object.js';

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
export const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';

/** One entry version as a source delivers it, validated, before it is stored. */
export interface IngestRecord {
  entryType: EntryType;
  /** `namespace/name` for every entry type. */
  name: string;
  version: string;
  status: string;
  statusMessage: string | null;
  title: string;
  description: string;
  /** The record as published, compact JSON text. */
  body: string;
  tags: string[];
  publishedAt?: Date;
  updatedAt?: Date;
  statusChangedAt?: Date;
  /** Claims of this record alone (kubernetes annotations); absent: the source's claims apply. */
  claims?: Claims;
}

export const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
export const NAMESPACE = /^[a-zA-Z0-9][a-zA-Z0-9.-]*$/;
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const PLUGIN_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
const RANGE = /[\^~<>=*|]|\s-\s/;
/** An x-range part (`1.x`, `X.1`) in the numeric core; prerelease and build identifiers may be `x`. */
const X_RANGE = /(?:^|\.)[xX](?:\.|$)/;
const STATUSES = new Set(['active', 'deprecated', 'deleted', 'archived']);
/** Skills and plugins have no `deleted`: the consumer status filter offers active, deprecated and archived. */
const PACKAGE_STATUSES = new Set(['active', 'deprecated', 'archived']);

export class RecordError extends Error {}

function optionalDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function checkVersion(version: unknown, strict: boolean): string {
  if (typeof version !== 'string' || version.trim() === '') throw new RecordError('version: must be a non-empty string');
  if (version.length > 255) throw new RecordError('version: must be at most 255 characters');
  if (strict && version === 'latest') throw new RecordError('version: "latest" is reserved; publish a specific version');
  if (strict && (RANGE.test(version) || X_RANGE.test(version.split(/[-+]/, 1)[0] ?? ''))) throw new RecordError(`version: "${version}" is a range; publish a specific version`);
  return version;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Tags of a server: `tags` string arrays at the top of its publisher metadata or nested two levels deep. */
export function serverTags(server: Record<string, unknown>): string[] {
  const meta = isJsonObject(server._meta) ? server._meta[PUBLISHER_META] : undefined;
  const tags = new Set<string>();
  const collect = (node: unknown, depth: number) => {
    if (!isJsonObject(node)) return;
    const found = node.tags;
    if (Array.isArray(found)) for (const tag of found) if (typeof tag === 'string') tags.add(tag);
    if (depth < 2) for (const child of Object.values(node)) collect(child, depth + 1);
  };
  collect(meta, 0);
  return [...tags];
}

export interface ServerRecordInput {
  server: unknown;
  /** The `_meta` beside `server` in an API record (the registry's own metadata). */
  meta?: unknown;
}

/**
 * Validates one server version. `strict` is for publishing (no `latest`, no ranges); synced data is
 * taken as its upstream published it, since the upstream registry already accepted it.
 */
export function serverRecord({ server, meta }: ServerRecordInput, strict: boolean): IngestRecord {
  if (!isJsonObject(server)) throw new RecordError('server: must be an object');
  const { name } = server;
  if (typeof name !== 'string' || name.length < 3 || name.length > 200 || !SERVER_NAME.test(name)) {
    throw new RecordError(`name: ${JSON.stringify(name)} must be "namespace/name" (3 to 200 characters of letters, digits, ".", "-" and one "/", "_" allowed after it)`);
  }
  const version = checkVersion(server.version, strict);
  const official = isJsonObject(meta) && isJsonObject(meta[OFFICIAL_META]) ? meta[OFFICIAL_META] : {};
  const status = typeof official.status === 'string' && STATUSES.has(official.status) ? official.status : 'active';
  return {
    entryType: 'server',
    name,
    version,
    status,
    statusMessage: typeof official.statusMessage === 'string' ? official.statusMessage : null,
    title: text(server.title),
    description: text(server.description),
    body: JSON.stringify(server),
    tags: serverTags(server),
    publishedAt: optionalDate(official.publishedAt),
    updatedAt: optionalDate(official.updatedAt),
    statusChangedAt: optionalDate(official.statusChangedAt),
  };
}

/** Fields that the registry sets itself; a publisher's values for them are dropped. */
const REGISTRY_FIELDS = ['createdAt', 'updatedAt', 'id', 'isLatest'];

export function packageRecord(entryType: 'skill' | 'plugin', record: unknown, strict: boolean): IngestRecord {
  if (!isJsonObject(record)) throw new RecordError(`${entryType}: must be an object`);
  const { namespace, name } = record;
  if (typeof namespace !== 'string' || namespace.length > 200 || !NAMESPACE.test(namespace)) {
    throw new RecordError(`namespace: ${JSON.stringify(namespace)} must be reverse-DNS (letters, digits, "." and "-")`);
  }
  const rule = entryType === 'skill' ? SKILL_NAME : PLUGIN_NAME;
  if (typeof name !== 'string' || name.length < 1 || name.length > 64 || !rule.test(name)) {
    throw new RecordError(
      entryType === 'skill'
        ? `name: ${JSON.stringify(name)} must be 1 to 64 characters of a-z, 0-9 and single "-" between them`
        : `name: ${JSON.stringify(name)} must be 1 to 64 characters of letters, digits, ".", "_" and "-"`,
    );
  }
  const version = checkVersion(record.version, strict);
  // absent means active; anything else given must be one of the statuses, a number is no status
  const status = record.status === undefined || record.status === null ? 'active' : typeof record.status === 'string' ? record.status.toLowerCase() : '';
  if (!PACKAGE_STATUSES.has(status)) throw new RecordError(`status: ${JSON.stringify(record.status)} must be active, deprecated or archived`);
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!REGISTRY_FIELDS.includes(key)) body[key] = value;
  body.status = status;
  const metadata = isJsonObject(record.metadata) ? record.metadata : {};
  const tagSource = Array.isArray(record.tags) ? record.tags : Array.isArray(metadata.tags) ? metadata.tags : [];
  return {
    entryType,
    name: `${namespace}/${name}`,
    version,
    status,
    statusMessage: null,
    title: text(record.title),
    description: text(record.description),
    body: JSON.stringify(body),
    tags: tagSource.filter((tag): tag is string => typeof tag === 'string'),
    publishedAt: strict ? undefined : optionalDate(record.createdAt),
    updatedAt: strict ? undefined : optionalDate(record.updatedAt),
  };
}
