import { readFile } from 'node:fs/promises';
import type { TObject, TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml, YAMLParseError } from 'yaml';

/** A configuration problem, always naming the key it is about (`sources[2].git.branch: ...`). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions<S extends TObject> {
  schema: S;
  /** The YAML text; undefined for an empty document. */
  text?: string;
  /** Where the text came from, for messages. */
  origin?: string;
  /** Variables whose names start with this prefix override keys: `TOOLYARD_REGISTRY_DATABASE_URL`. */
  envPrefix: string;
  env: Record<string, string | undefined>;
  /** Rules a schema cannot express; each returns `path: message` strings. */
  check?: (config: Static<S>) => string[];
}

export async function readConfigFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError([`${path}: cannot read the configuration file (${code ?? String(error)})`]);
  }
}

export function loadConfig<S extends TObject>(options: LoadConfigOptions<S>): Static<S> {
  const { schema, text, origin = 'config', envPrefix, env } = options;
  let document: unknown = {};
  if (text !== undefined && text.trim() !== '') {
    try {
      document = parseYaml(text) ?? {};
    } catch (error) {
      const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
      throw new ConfigError([`${origin}${where}: not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`]);
    }
  }
  if (!isPlainObject(document)) throw new ConfigError([`${origin}: the document must be a mapping of keys`]);
  const problems = applyEnvOverrides(document, schema, envPrefix, env);
  if (problems.length > 0) throw new ConfigError(problems);

  const withDefaults = Value.Default(schema, document);
  const errors = [...Value.Errors(schema, withDefaults)];
  if (errors.length > 0) {
    const seen = new Set<string>();
    const messages: string[] = [];
    for (const error of errors) {
      const key = pointerToKey(error.path);
      if (seen.has(key)) continue;
      seen.add(key);
      messages.push(`${key || '(root)'}: ${describeSchemaError(error.message, error.schema)}`);
    }
    throw new ConfigError(messages);
  }
  const config = withDefaults as Static<S>;
  const ruleProblems = options.check?.(config) ?? [];
  if (ruleProblems.length > 0) throw new ConfigError(ruleProblems);
  return config;
}

function describeSchemaError(message: string, schema: TSchema): string {
  if (/^unexpected property/i.test(message)) return 'is not a known key (check its spelling and indentation)';
  const description = typeof schema.description === 'string' ? ` (${schema.description})` : '';
  if (/^expected required property/i.test(message)) return `is required${description}`;
  return `${message.toLowerCase()}${description}`;
}

/** `/sources/2/git/branch` → `sources[2].git.branch`. */
export function pointerToKey(pointer: string): string {
  let key = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    key += /^\d+$/.test(part) ? `[${part}]` : key === '' ? part : `.${part}`;
  }
  return key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Env overrides walk the schema so that camelCase keys need no escaping: `DATABASE_DATADIR` and
 * `DATABASE_DATA_DIR` both reach `database.dataDir`, `SOURCES_0_GIT_BRANCH` reaches `sources[0].git.branch`.
 * Values are read as YAML scalars or flow collections, so `[a, b]` and `true` keep their types.
 */
function applyEnvOverrides(
  document: Record<string, unknown>,
  schema: TSchema,
  prefix: string,
  env: Record<string, string | undefined>,
): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(prefix) || raw === undefined) continue;
    const segments = name.slice(prefix.length).split('_').filter(Boolean);
    const path = resolveEnvPath(schema, segments);
    if (!path) {
      problems.push(`${name}: does not name a configuration key`);
      continue;
    }
    let value: unknown;
    try {
      value = parseYaml(raw);
    } catch {
      value = raw;
    }
    setPath(document, path, value ?? raw);
  }
  return problems;
}

function resolveEnvPath(schema: TSchema, segments: string[]): (string | number)[] | undefined {
  if (segments.length === 0) return [];
  const [first] = segments;
  if (schema.type === 'array' && first !== undefined && /^\d+$/.test(first)) {
    const rest = resolveEnvPath(schema.items as TSchema, segments.slice(1));
    return rest && [Number(first), ...rest];
  }
  if (schema.type === 'object' && schema.properties) {
    for (const [prop, propSchema] of Object.entries(schema.properties as Record<string, TSchema>)) {
      for (const spelling of [prop.toUpperCase(), prop.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()]) {
        const width = spelling.split('_').length;
        if (segments.slice(0, width).join('_') !== spelling) continue;
        const rest = resolveEnvPath(propSchema, segments.slice(width));
        if (rest) return [prop, ...rest];
      }
    }
  }
  return undefined;
}

function setPath(target: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next !== 'object' || next === null) {
      node[key] = typeof path[index + 1] === 'number' ? [] : {};
    }
    node = node[key] as Record<string | number, unknown>;
  });
}
