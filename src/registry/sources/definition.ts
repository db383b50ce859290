import { Type, type Static } from '@sinclair/typebox';
import { parseDuration } from '../../core/config/duration.js';
import type { FilterConfig, SourceKind } from '../tables.js';
import { KubernetesSourceSchema } from '../../core/kubernetes/schema.js';

const Duration = (description: string) => Type.String({ description: `${description} (a duration: 30s, 5m, 1h30m)` });
const StringList = (description: string) => Type.Array(Type.String({ minLength: 1 }), { description });
const IncludeExclude = (what: string) =>
  Type.Object(
    {
      include: Type.Optional(StringList(`${what} to keep; empty keeps all`)),
      exclude: Type.Optional(StringList(`${what} to drop; exclude beats include`)),
    },
    { additionalProperties: false },
  );

export const GitSourceSchema = Type.Object(
  {
    repository: Type.String({ minLength: 1, description: 'clone URL of the repository (https, ssh, file or a local path)' }),
    branch: Type.Optional(Type.String({ minLength: 1, description: 'branch to read' })),
    tag: Type.Optional(Type.String({ minLength: 1, description: 'tag to read' })),
    commit: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{7,40}$', description: 'commit to read' })),
    path: Type.Optional(Type.String({ minLength: 1, description: 'catalog file inside the repository (default registry.json)' })),
    auth: Type.Optional(
      Type.Object(
        {
          username: Type.String({ minLength: 1, description: 'user name for HTTP basic auth' }),
          passwordFile: Type.String({ minLength: 1, description: 'file holding the password or token' }),
        },
        { additionalProperties: false },
      ),
    ),
    timeout: Type.Optional(Duration('time allowed for one fetch')),
  },
  { additionalProperties: false, description: 'a catalog file in a git repository' },
);

export const ApiSourceSchema = Type.Object(
  {
    endpoint: Type.String({ minLength: 1, description: 'base URL of an MCP Registry API (v0.1) to crawl' }),
    timeout: Type.Optional(Duration('time allowed for one HTTP request')),
  },
  { additionalProperties: false, description: 'an upstream MCP Registry API' },
);

export const FileSourceSchema = Type.Object(
  {
    path: Type.Optional(Type.String({ minLength: 1, description: 'local catalog file' })),
    url: Type.Optional(Type.String({ minLength: 1, description: 'catalog file served over HTTP(S)' })),
    data: Type.Optional(Type.Unknown({ description: 'the catalog document itself (admin API only)' })),
    timeout: Type.Optional(Duration('time allowed to fetch url')),
  },
  { additionalProperties: false, description: 'a catalog file: exactly one of path, url or data' },
);

export const SourceDefinitionSchema = Type.Object(
  {
    git: Type.Optional(GitSourceSchema),
    api: Type.Optional(ApiSourceSchema),
    file: Type.Optional(FileSourceSchema),
    managed: Type.Optional(Type.Object({}, { additionalProperties: false, description: 'entries published through POST /v1/entries' })),
    kubernetes: Type.Optional(KubernetesSourceSchema),
    syncPolicy: Type.Optional(
      Type.Object({ interval: Duration('time between syncs, at least 10s') }, { additionalProperties: false, description: 'sync schedule' }),
    ),
    filter: Type.Optional(
      Type.Object(
        { names: Type.Optional(IncludeExclude('name globs (* matches any run of characters)')), tags: Type.Optional(IncludeExclude('tags')) },
        { additionalProperties: false, description: 'which entries of the source are kept' },
      ),
    ),
    claims: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'claims inherited by synced entries and required to manage the source',
      }),
    ),
  },
  { additionalProperties: false },
);

export type SourceDefinition = Static<typeof SourceDefinitionSchema>;

export const SOURCE_KINDS = ['git', 'api', 'file', 'managed', 'kubernetes'] as const satisfies readonly SourceKind[];
export const SYNCED_KINDS: readonly SourceKind[] = ['git', 'api', 'file'];
export const MIN_SYNC_INTERVAL_MS = 10_000;
export const DEFAULT_SYNC_INTERVAL = '1h';

export function sourceKindOf(definition: SourceDefinition): SourceKind | undefined {
  const kinds = SOURCE_KINDS.filter((kind) => definition[kind] !== undefined);
  return kinds.length === 1 ? kinds[0] : undefined;
}

/** Rules the schema cannot express, as `key: message`, with `prefix` naming where the definition sits. */
export function checkSourceDefinition(definition: SourceDefinition, prefix: string): string[] {
  const at = (key: string) => (prefix ? `${prefix}.${key}` : key);
  const kinds = SOURCE_KINDS.filter((kind) => definition[kind] !== undefined);
  if (kinds.length !== 1) {
    return [
      kinds.length === 0
        ? `${prefix || 'source'}: exactly one of ${SOURCE_KINDS.join(', ')} is required`
        : `${prefix || 'source'}: exactly one of ${SOURCE_KINDS.join(', ')} is allowed (found ${kinds.join(' and ')})`,
    ];
  }
  const problems: string[] = [];
  const kind = kinds[0];
  if (definition.git) {
    const refs = (['branch', 'tag', 'commit'] as const).filter((ref) => definition.git?.[ref] !== undefined);
    if (refs.length > 1) problems.push(`${at(`git.${refs[0] ?? ''}`)}: branch, tag and commit are mutually exclusive`);
  }
  if (definition.api && !isHttpUrl(definition.api.endpoint)) problems.push(`${at('api.endpoint')}: must be an http or https URL`);
  if (definition.file) {
    const given = (['path', 'url', 'data'] as const).filter((key) => definition.file?.[key] !== undefined);
    if (given.length !== 1) problems.push(`${at('file')}: exactly one of path, url and data is required`);
    if (definition.file.url !== undefined && !isHttpUrl(definition.file.url)) problems.push(`${at('file.url')}: must be an http or https URL`);
  }
  for (const [key, value] of [
    ['git.timeout', definition.git?.timeout],
    ['api.timeout', definition.api?.timeout],
    ['file.timeout', definition.file?.timeout],
  ] as const) {
    if (value !== undefined && !parseDuration(value)) problems.push(`${at(key)}: "${value}" is not a duration (examples: 30s, 5m, 1h30m)`);
  }
  if (definition.syncPolicy) {
    const interval = parseDuration(definition.syncPolicy.interval);
    if (interval === undefined) problems.push(`${at('syncPolicy.interval')}: "${definition.syncPolicy.interval}" is not a duration (examples: 30s, 5m, 1h30m)`);
    else if (interval < MIN_SYNC_INTERVAL_MS) problems.push(`${at('syncPolicy.interval')}: must be at least 10s`);
    if (!SYNCED_KINDS.includes(kind ?? 'managed')) problems.push(`${at('syncPolicy')}: ${kind ?? ''} sources are not synced on a schedule`);
  }
  if (definition.filter && !SYNCED_KINDS.includes(kind ?? 'managed')) problems.push(`${at('filter')}: filters apply to synced sources only`);
  return problems;
}

export function normalizeFilter(definition: SourceDefinition): FilterConfig {
  const { names, tags } = definition.filter ?? {};
  return {
    names: { include: names?.include ?? [], exclude: names?.exclude ?? [] },
    tags: { include: tags?.include ?? [], exclude: tags?.exclude ?? [] },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
