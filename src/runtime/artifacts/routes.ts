import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import type { BuildService } from './builds.js';
import type { KindSpec } from './kinds.js';
import type { PushService } from './push.js';
import { BuildBody, BuildList, BuildResult, PushBody, PushHeaders, TagParam, ValidateBody, ValidationResult } from './schemas.js';
import { SIGNING_CAPABILITY_HEADER } from './signing-capability.js';

const NoContent = Type.Null({ description: 'done' });

export interface ArtifactRouteDeps {
  spec: KindSpec;
  builds: BuildService;
  pushes: PushService;
}

/** The routes of one kind under `/api/v1beta/skills` or `/api/v1beta/plugins` (clarification point 1). */
export function registerArtifactRoutes(app: HttpApp, { spec, builds, pushes }: ArtifactRouteDeps): void {
  const base = `/api/v1beta/${spec.kind}`;
  const tags = [spec.kind];
  app.post(
    `${base}/validate`,
    { schema: { tags, summary: `Validate a ${spec.singular} folder`, body: ValidateBody, response: { 200: ValidationResult, 400: ErrorSchema } } },
    (request) => builds.validate(request.body.path),
  );
  app.post(
    `${base}/build`,
    { schema: { tags, summary: `Build a ${spec.singular} folder into the local OCI layout`, body: BuildBody, response: { 200: BuildResult, 400: ErrorSchema } } },
    (request) => builds.build(request.body),
  );
  app.post(
    `${base}/push`,
    {
      schema: {
        tags,
        summary: `Push a local ${spec.singular} build to the OCI registry its tag names`,
        body: PushBody,
        headers: PushHeaders,
        response: { 204: NoContent, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 500: ErrorSchema, 501: ErrorSchema },
      },
    },
    async (request, reply) => {
      await pushes.push({ ...request.body, capability: request.headers[SIGNING_CAPABILITY_HEADER] });
      return reply.code(204).send(null);
    },
  );
  app.get(`${base}/builds`, { schema: { tags, summary: `List the local ${spec.singular} builds`, response: { 200: BuildList } } }, async () => ({ builds: await builds.list() }));
  app.delete(
    `${base}/builds/:tag`,
    { schema: { tags, summary: `Delete a local ${spec.singular} build`, params: TagParam, response: { 204: NoContent, 404: ErrorSchema } } },
    async (request, reply) => {
      await builds.remove(request.params.tag);
      return reply.code(204).send(null);
    },
  );
}
