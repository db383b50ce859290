import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifyError, FastifySchemaCompiler } from 'fastify';
import { InvalidInputError } from '../errors.js';
import { lazyValidator } from './lazy-compilers.js';

function createAjv(coerceTypes: 'array' | false): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  // ajv-formats is CommonJS with an ES default export: under NodeNext the plugin is `.default`
  ajvFormats.default(ajv);
  return ajv;
}

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

function numericKind(schema: SchemaNode | undefined): 'integer' | 'number' | undefined {
  if (schema === undefined) return undefined;
  const types = [schema.type ?? [], ...(schema.anyOf ?? []).map((branch) => branch.type ?? [])].flat();
  if (types.includes('string')) return undefined;
  if (types.includes('number')) return 'number';
  return types.includes('integer') ? 'integer' : undefined;
}

function integerTextProblem(text: string): string | undefined {
  if (!INTEGER_TEXT.test(text)) return 'must be a whole number written in decimal digits (like 20)';
  const number = Number(text);
  return Number.isSafeInteger(number) ? undefined : `must be between -${String(Number.MAX_SAFE_INTEGER)} and ${String(Number.MAX_SAFE_INTEGER)}`;
}

function numberTextProblem(text: string): string | undefined {
  if (!NUMBER_TEXT.test(text)) return 'must be a number written in decimal digits (like 2.5)';
  return Number.isFinite(Number(text)) ? undefined : 'is too large';
}

/**
 * Ajv coerces any text JavaScript reads as a number: `1e309` becomes Infinity (which passes as an
 * integer), `0x10` 16, ` 5` 5 and `1.0` 1. Query and path values are checked as written instead:
 * plain decimal digits, and integers JavaScript holds exactly. Which properties are numeric is worked
 * out once per schema, not on every request.
 */
function numericProperties(schema: SchemaNode): [string, 'integer' | 'number'][] {
  const numeric: [string, 'integer' | 'number'][] = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const kind = numericKind(property) ?? numericKind(property.items);
    if (kind !== undefined) numeric.push([key, kind]);
  }
  return numeric;
}

function numericTextProblem(numeric: readonly [string, 'integer' | 'number'][], data: unknown): ErrorObject | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  for (const [key, kind] of numeric) {
    const value = (data as Record<string, unknown>)[key];
    if (value === undefined) continue;
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== 'string') continue;
      const message = kind === 'integer' ? integerTextProblem(text) : numberTextProblem(text);
      if (message !== undefined) return { instancePath: `/${key}`, schemaPath: '#/properties', keyword: 'type', params: {}, message };
    }
  }
  return undefined;
}

/** Query and path values with their numbers checked as written, before Ajv coerces them. */
function strictTextValidator(ajv: Ajv, schema: SchemaNode): ValidateFunction {
  const validate = ajv.compile(schema);
  const numeric = numericProperties(schema);
  const check = (data: unknown, context?: never): boolean => {
    const problem = numericTextProblem(numeric, data);
    check.errors = problem ? [problem] : null;
    if (problem) return false;
    const valid = validate(data, context);
    check.errors = validate.errors ?? null;
    return valid;
  };
  check.errors = null as ErrorObject[] | null;
  // Fastify passes the parent object (so Ajv may replace a coerced root value) only to functions that have it
  return Object.assign(check, { schemaEnv: validate.schemaEnv, schema: validate.schema }) as ValidateFunction;
}

/**
 * Query strings and path parameters arrive as text and are coerced to their declared types; JSON
 * bodies are not, so `{claims: {org: 3}}` is refused instead of being stored as "3".
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  let ajv: { strings: Ajv; body: Ajv } | undefined;
  return ({ schema, httpPart }) =>
    lazyValidator(() => {
      ajv ??= { strings: createAjv('array'), body: createAjv(false) };
      return httpPart === 'body' ? ajv.body.compile(schema as AnySchema) : strictTextValidator(ajv.strings, schema as SchemaNode);
    });
}

/** Turns Ajv's report into one sentence naming the parameter: `limit: must be <= 100`. */
export function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'request';
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  const extra = (first.params as { additionalProperty?: string }).additionalProperty;
  const where = [path, missing ?? extra].filter(Boolean).join('.');
  const subject = where === '' ? context : context === 'body' ? `body.${where}` : where;
  if (extra !== undefined) return `${subject}: unknown field`;
  if (missing !== undefined) return `${subject}: is required`;
  if (first.keyword === 'const') {
    // a union of literals fails once per literal: name them all instead of "must be equal to constant"
    const values = error.validation
      ?.filter((problem) => problem.keyword === 'const' && problem.instancePath === first.instancePath)
      .map((problem) => JSON.stringify((problem.params as { allowedValue?: unknown }).allowedValue));
    return `${subject}: must be ${values && values.length > 1 ? `one of ${values.join(', ')}` : (values?.[0] ?? 'a fixed value')}`;
  }
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  return `${subject}: ${first.message ?? 'is invalid'}${allowed ? ` (${allowed.join(', ')})` : ''}`;
}

interface Visit {
  value: unknown;
  key?: string;
  parent?: Visit;
}

function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/** NUL, or half of a UTF-16 surrogate pair alone (JSON can carry `"\ud800"`; UTF-8 and PostgreSQL cannot). */
const unstorable = (text: string) => text.includes('\u0000') || /\p{Cs}/u.test(text);

/** The key path of the first string (value or key) that holds unstorable text, `[]` for the root. */
function unstorablePath(root: unknown): { path: string[]; text: string } | undefined {
  // depth first without recursion: a body may nest arrays thousands deep
  const pending: Visit[] = [{ value: root }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      if (unstorable(value)) return { path: pathOf(visit), text: value };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const entries = Object.entries(value);
    const badKey = entries.find(([name]) => unstorable(name));
    if (badKey) return { path: pathOf(visit), text: badKey[0] };
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, item] = entries[index] as [string, unknown];
      pending.push({ value: item, key, parent: visit });
    }
  }
  return undefined;
}

/**
 * No text the services store or use as a file name may hold NUL (PostgreSQL refuses it in text, the
 * file system in paths) or a lone surrogate (PostgreSQL refuses it in JSON): both are refused at the
 * edge, for every route, naming the field.
 */
export function refuseUnstorableText(request: { params: unknown; query: unknown; body: unknown }): void {
  for (const [part, value, prefix] of [
    ['path', request.params, []],
    ['query', request.query, []],
    ['body', request.body, ['body']],
  ] as const) {
    const found = unstorablePath(value);
    if (found === undefined) continue;
    const field = [...prefix, ...found.path].join('.') || part;
    throw new InvalidInputError(
      found.text.includes('\u0000') ? `${field}: must not contain a NUL character` : `${field}: must be well-formed Unicode (it holds half of a surrogate pair, like \\ud800)`,
    );
  }
}
