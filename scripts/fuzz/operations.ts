/** The operations of an OpenAPI 3.1 document, with their parameters and body schema resolved. */

export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  minItems?: number;
  format?: string;
}

export interface Parameter {
  name: string;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The path template, `{name}` for each parameter. */
  path: string;
  pathParams: Parameter[];
  query: Parameter[];
  body?: Schema;
}

interface Document {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: Schema }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** Follows `$ref`s (`#/components/schemas/Name`, or a bare `Name` as the document's own ids are) one level at a time. */
export function resolver(document: unknown): (schema: Schema) => Schema {
  const schemas = (document as Document).components?.schemas ?? {};
  return (schema) => {
    let current = schema;
    for (let depth = 0; current.$ref !== undefined && depth < 10; depth += 1) {
      const name = current.$ref.replace(/^#\/components\/schemas\//, '');
      current = schemas[name] ?? {};
    }
    return current;
  };
}

export function operationsOf(document: unknown): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries((document as Document).paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const parameters = operation.parameters ?? [];
      const of = (where: string) => parameters.filter((p) => p.in === where).map((p) => ({ name: p.name, schema: p.schema ?? {} }));
      const body = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({ method: method.toUpperCase(), path, pathParams: of('path'), query: of('query'), ...(body && { body }) });
    }
  }
  return operations;
}
