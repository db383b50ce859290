import * as models from '@kubernetes/client-node';
import { Ajv, type ValidateFunction } from 'ajv';

/*
 * JSON schemas of Kubernetes objects, built from the API models @kubernetes/client-node generates from
 * the Kubernetes OpenAPI document: every field of every object with its type, nothing else allowed.
 * A misspelt or misplaced field, or a value of the wrong type, is refused as an API server would.
 * (The generated models do not say which fields are required; the chart test checks those it relies on.)
 */

interface Attribute {
  baseName: string;
  type: string;
}

type Model = { getAttributeTypeMap(): Attribute[] } | undefined;

/** The model class of an object: `apps/v1` + `Deployment` → V1Deployment, `rbac.authorization.k8s.io/v1` + `Role` → V1Role. */
function modelName(apiVersion: string, kind: string): string {
  const version = apiVersion.split('/').pop() ?? '';
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

function schemaOf(type: string, definitions: Record<string, object>): object {
  if (type === 'string' || type === 'Date') return { type: 'string' };
  if (type === 'number') return { type: 'number' };
  if (type === 'boolean') return { type: 'boolean' };
  if (type === 'IntOrString') return { type: ['integer', 'string'] };
  if (type === 'any' || type === 'object') return {};
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1] !== undefined) return { type: 'array', items: schemaOf(array[1], definitions) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1] !== undefined) return { type: 'object', additionalProperties: schemaOf(map[1], definitions) };
  define(type, definitions);
  return { $ref: `#/definitions/${type}` };
}

function define(name: string, definitions: Record<string, object>): void {
  if (name in definitions) return;
  const model = (models as unknown as Record<string, Model>)[name];
  if (!model) throw new Error(`no Kubernetes model named ${name}`);
  definitions[name] = {};
  const properties: Record<string, object> = {};
  for (const attribute of model.getAttributeTypeMap()) properties[attribute.baseName] = schemaOf(attribute.type, definitions);
  definitions[name] = { type: 'object', properties, additionalProperties: false };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();

/** Problems of one object against the API schema of its kind, as `path: message`; empty when it is valid. */
export function kubernetesSchemaProblems(object: { apiVersion: string; kind: string }): string[] {
  const name = modelName(object.apiVersion, object.kind);
  let validate = validators.get(name);
  if (!validate) {
    const definitions: Record<string, object> = {};
    define(name, definitions);
    validate = ajv.compile({ definitions, $ref: `#/definitions/${name}` });
    validators.set(name, validate);
  }
  const { kind } = object;
  if (validate(object)) return [];
  return (validate.errors ?? []).map((error) => `${kind} ${error.instancePath || '/'}: ${error.message ?? 'invalid'}${'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`);
}
