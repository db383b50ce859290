import type { Claims } from '../../../tables.js';
import { RecordError, serverRecord, type IngestRecord } from '../records.js';

export const ANNOTATION = {
  export: 'toolyard.dev/registry-export',
  name: 'toolyard.dev/registry-name',
  title: 'toolyard.dev/registry-title',
  description: 'toolyard.dev/registry-description',
  version: 'toolyard.dev/registry-version',
  transport: 'toolyard.dev/registry-transport',
  url: 'toolyard.dev/registry-url',
  claims: 'toolyard.dev/authz-claims',
} as const;

const TRANSPORTS = new Set(['streamable-http', 'sse']);

/** The parts of a Kubernetes object that discovery reads; everything else is ignored. */
export interface KubeObject {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: { ports?: { port?: number }[]; port?: unknown; url?: unknown };
}

export type ObjectOutcome =
  | { kind: 'ignored' }
  | { kind: 'entry'; record: IngestRecord }
  /** `error`: the object asked to be exported but its annotations are broken (counted as an error). */
  | { kind: 'skipped'; reason: string; error: boolean };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/** `toolyard.dev/authz-claims`: a JSON object of string or string-array values. */
export function parseClaims(text: string | undefined): Claims | string {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${ANNOTATION.claims} is not valid JSON`;
  }
  if (!isObject(value)) return `${ANNOTATION.claims} must be a JSON object`;
  for (const [key, item] of Object.entries(value)) {
    const valid = typeof item === 'string' || (Array.isArray(item) && item.every((part) => typeof part === 'string'));
    if (!valid || key === '') return `${ANNOTATION.claims}: "${key}" must map to a string or a list of strings`;
  }
  return value as Claims;
}

/**
 * The default remote of an exported object: a Service's in-cluster DNS name and first port; a custom
 * resource may give `spec.url`, or `spec.port` to use the Service of the same name.
 */
function defaultUrl(object: KubeObject, service: boolean): string | undefined {
  const { name, namespace } = object.metadata ?? {};
  const port = service ? object.spec?.ports?.[0]?.port : object.spec?.port;
  if (!service && typeof object.spec?.url === 'string' && object.spec.url !== '') return object.spec.url;
  if (typeof port !== 'number' || name === undefined || namespace === undefined) return undefined;
  return `http://${name}.${namespace}.svc.cluster.local:${port}/mcp`;
}

/** Turns one watched object into a server entry, or says why it is not one. */
export function exportedEntry(object: KubeObject, service: boolean): ObjectOutcome {
  const annotations = object.metadata?.annotations ?? {};
  if (annotations[ANNOTATION.export] !== 'true') return { kind: 'ignored' };
  const where = `${service ? 'Service' : (object.kind ?? 'object')} ${objectKey(object)}`;
  const name = annotations[ANNOTATION.name];
  if (name === undefined || name === '') return { kind: 'skipped', reason: `${where}: ${ANNOTATION.name} is missing`, error: false };
  const claims = parseClaims(annotations[ANNOTATION.claims]);
  if (typeof claims === 'string') return { kind: 'skipped', reason: `${where}: ${claims}`, error: true };
  const transport = annotations[ANNOTATION.transport] ?? 'streamable-http';
  if (!TRANSPORTS.has(transport)) return { kind: 'skipped', reason: `${where}: ${ANNOTATION.transport} must be streamable-http or sse`, error: true };
  const url = annotations[ANNOTATION.url] ?? defaultUrl(object, service);
  if (url === undefined) return { kind: 'skipped', reason: `${where}: no port to build a URL from; set ${ANNOTATION.url}`, error: true };
  const server: Record<string, unknown> = { name };
  if (annotations[ANNOTATION.title] !== undefined) server.title = annotations[ANNOTATION.title];
  server.description = annotations[ANNOTATION.description] ?? '';
  server.version = annotations[ANNOTATION.version] ?? '1.0.0';
  server.remotes = [{ type: transport, url }];
  try {
    return { kind: 'entry', record: { ...serverRecord({ server }, false), claims } };
  } catch (error) {
    if (error instanceof RecordError) return { kind: 'skipped', reason: `${where}: ${error.message}`, error: false };
    throw error;
  }
}
