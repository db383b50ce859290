import { isJsonObject } from '../json-object.js';

/*
 * How an MCP server running in Kubernetes says it wants to be found: the annotations and the reading of one
 * object, shared by the registry's kubernetes source and the platform's discovered servers.
 */

export const ANNOTATION = {
  export: 'toolyard.dev/registry-export',
  name: 'toolyard.dev/registry-name',
  title: 'toolyard.dev/registry-title',
  description: 'toolyard.dev/registry-description',
  version: 'toolyard.dev/registry-version',
  transport: 'toolyard.dev/registry-transport',
  url: 'toolyard.dev/registry-url',
  claims: 'toolyard.dev/authz-claims',
  group: 'toolyard.dev/mcp-group',
} as const;

export type ExportTransport = 'streamable-http' | 'sse';
const TRANSPORTS = new Set<string>(['streamable-http', 'sse'] satisfies ExportTransport[]);

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
  /** `phase`, when the kind has one (custom resources often do; Services do not). */
  status?: unknown;
}

/** Claims of the `toolyard.dev/authz-claims` annotation. */
export type AnnotatedClaims = Record<string, string | string[]>;

/** An exported object read: its remote and the annotations that describe it. */
export interface ExportedServer {
  /** `Service ns/name` or `<Kind> ns/name`, for messages. */
  where: string;
  annotations: Record<string, string>;
  transport: ExportTransport;
  url: string;
  claims: AnnotatedClaims;
}

export type ExportOutcome =
  | { kind: 'ignored' }
  | { kind: 'server'; server: ExportedServer }
  /** `error`: the object asked to be exported but its annotations are broken (counted as an error). */
  | { kind: 'skipped'; reason: string; error: boolean };

export function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/** `status.phase` when it is a non-empty string. */
export function phaseOf(object: KubeObject): string | undefined {
  const phase = isJsonObject(object.status) ? object.status.phase : undefined;
  return typeof phase === 'string' && phase !== '' ? phase : undefined;
}

export function isExported(object: KubeObject): boolean {
  return object.metadata?.annotations?.[ANNOTATION.export] === 'true';
}

export function describeObject(object: KubeObject, service: boolean): string {
  return `${service ? 'Service' : (object.kind ?? 'object')} ${objectKey(object)}`;
}

/** `toolyard.dev/authz-claims`: a JSON object of string or string-array values. */
export function parseClaims(text: string | undefined): AnnotatedClaims | string {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${ANNOTATION.claims} is not valid JSON`;
  }
  if (!isJsonObject(value)) return `${ANNOTATION.claims} must be a JSON object`;
  for (const [key, item] of Object.entries(value)) {
    const valid = typeof item === 'string' || (Array.isArray(item) && item.every((part) => typeof part === 'string'));
    if (!valid || key === '') return `${ANNOTATION.claims}: "${key}" must map to a string or a list of strings`;
  }
  return value as AnnotatedClaims;
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

/** Reads one watched object's export annotations, or says why it cannot be served. */
export function readExport(object: KubeObject, service: boolean): ExportOutcome {
  if (!isExported(object)) return { kind: 'ignored' };
  const annotations = object.metadata?.annotations ?? {};
  const where = describeObject(object, service);
  const claims = parseClaims(annotations[ANNOTATION.claims]);
  if (typeof claims === 'string') return { kind: 'skipped', reason: `${where}: ${claims}`, error: true };
  const transport = annotations[ANNOTATION.transport] ?? 'streamable-http';
  if (!TRANSPORTS.has(transport)) return { kind: 'skipped', reason: `${where}: ${ANNOTATION.transport} must be streamable-http or sse`, error: true };
  const url = annotations[ANNOTATION.url] ?? defaultUrl(object, service);
  if (url === undefined) return { kind: 'skipped', reason: `${where}: no port to build a URL from; set ${ANNOTATION.url}`, error: true };
  return { kind: 'server', server: { where, annotations, transport: transport as ExportTransport, url, claims } };
}
