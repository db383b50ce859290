import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

/*
 * Fastify compiles every route's validators and response serializers while the app starts: most of a
 * second for a service's few hundred schemas, paid before /health can answer although a process serves
 * a handful of routes in its first minute. Here each one compiles when its route is first called, with
 * the same compiler and the same result; the first call of a route pays its own few milliseconds.
 */

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

/** A validator that compiles on its first call, and reports the errors of the compiled one. */
export function lazyValidator(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate = (data: unknown, context?: unknown) => {
    compiled ??= compile();
    const result = (compiled as (data: unknown, context?: unknown) => ReturnType<Validator>)(data, context);
    validate.errors = compiled.errors ?? null;
    return result;
  };
  validate.errors = null as Validator['errors'];
  // Fastify passes the parent object (so Ajv may replace a coerced root value) only to a validator with a schemaEnv
  return Object.assign(validate, { schemaEnv: true });
}

/** Fastify's own serializer (fast-json-stringify), each route's built on its first response. */
export function lazySerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compiler = build(externalSchemas, options);
    return (route) => {
      let serialize: ((document: unknown) => string) | undefined;
      return (document: unknown) => (serialize ??= compiler(route))(document);
    };
  };
}
