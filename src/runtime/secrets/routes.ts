import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { CreateKeyBody, KeyList, KeyParams, KeyReply, ProviderDescription, ProviderParams, SetupBody, SetupReply, UpdateKeyBody } from './schemas.js';
import type { SecretsService } from './service.js';

const PREFIX = '/api/v1beta/secrets';
const tags = ['secrets'];
// every key operation: 403 when the store does not open, 405 when the provider cannot do it
const keyErrors = { 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 405: ErrorSchema };

/** There is one provider, named default; any other name is an unknown resource. */
function defaultOnly(name: string): void {
  if (name !== 'default') throw new NotFoundError(`secrets provider "${name}" not found; the only one is "default"`);
}

/** The secrets routes: keys travel in responses, values only ever in request bodies. */
export function registerSecretsRoutes(app: HttpApp, deps: { secrets: SecretsService }): void {
  const { secrets } = deps;
  app.post(
    PREFIX,
    { schema: { tags, summary: 'Set up or reconfigure the secrets provider', body: SetupBody, response: { 201: SetupReply, 400: ErrorSchema, 403: ErrorSchema } } },
    async (request, reply) => reply.code(201).send(await secrets.setup(request.body.provider_type, request.body.password)),
  );
  app.get(
    `${PREFIX}/:name`,
    { schema: { tags, summary: 'Describe the secrets provider', params: ProviderParams, response: { 200: ProviderDescription, 404: ErrorSchema } } },
    (request) => {
      defaultOnly(request.params.name);
      return secrets.describe();
    },
  );
  app.get(
    `${PREFIX}/:name/keys`,
    { schema: { tags, summary: 'List secret keys (never values)', params: ProviderParams, response: { 200: KeyList, ...keyErrors } } },
    async (request) => {
      defaultOnly(request.params.name);
      return { keys: await secrets.listKeys() };
    },
  );
  app.post(
    `${PREFIX}/:name/keys`,
    { schema: { tags, summary: 'Create a secret', params: ProviderParams, body: CreateKeyBody, response: { 201: KeyReply, 409: ErrorSchema, ...keyErrors } } },
    async (request, reply) => {
      defaultOnly(request.params.name);
      await secrets.create(request.body.key, request.body.value);
      return reply.code(201).send({ key: request.body.key, message: 'secret created' });
    },
  );
  app.put(
    `${PREFIX}/:name/keys/:key`,
    { schema: { tags, summary: 'Update a secret', params: KeyParams, body: UpdateKeyBody, response: { 200: KeyReply, ...keyErrors } } },
    async (request) => {
      defaultOnly(request.params.name);
      await secrets.update(request.params.key, request.body.value);
      return { key: request.params.key, message: 'secret updated' };
    },
  );
  app.delete(
    `${PREFIX}/:name/keys/:key`,
    { schema: { tags, summary: 'Delete a secret', params: KeyParams, response: { 204: Type.Null(), ...keyErrors } } },
    async (request, reply) => {
      defaultOnly(request.params.name);
      await secrets.delete(request.params.key);
      return reply.code(204).send(null);
    },
  );
}
