import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import type { InstallService } from '../artifacts/installs.js';
import type { SyncService } from '../artifacts/sync.js';
import { SyncBody, SyncResult, ContentQuerystring, InstallBody, ListQuerystring, NameParam, ScopeQuerystring, SkillContent, SkillDetails, SkillInstallResponse, SkillList } from '../artifacts/schemas.js';
import { skillView } from '../artifacts/views.js';

const BASE = '/api/v1beta/skills';
const tags = ['skills'];
const NoContent = Type.Null({ description: 'done' });
const upstream = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, 429: ErrorSchema, 502: ErrorSchema, 504: ErrorSchema };

/** Installed skills: content preview, install, list, details, uninstall (clarification point 1). */
export function registerSkillRoutes(app: HttpApp, { installs, sync }: { installs: InstallService; sync: SyncService }): void {
  app.get(
    `${BASE}/content`,
    { schema: { tags, summary: 'Preview a skill without installing it', querystring: ContentQuerystring, response: { 200: SkillContent, ...upstream } } },
    async (request) => {
      const { text, ...preview } = await installs.content(request.query.ref);
      return { ...preview, body: text };
    },
  );
  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: "Install a skill into each selected client's skills folder",
        body: InstallBody,
        response: { 201: SkillInstallResponse, ...upstream, 403: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const record = await installs.install(request.body);
      const query = new URLSearchParams({ scope: record.scope, ...(record.project_root !== '' && { project_root: record.project_root }) });
      void reply.code(201).header('location', `${BASE}/${encodeURIComponent(record.name)}?${query.toString()}`);
      return { skill: skillView(record), provenance: record.provenance, unsigned: record.unsigned };
    },
  );
  app.get(
    BASE,
    { schema: { tags, summary: 'List installed skills (all scopes unless scope is given)', querystring: ListQuerystring, response: { 200: SkillList } } },
    async (request) => ({ skills: (await installs.list(request.query)).map((record) => skillView(record)) }),
  );
  app.post(
    `${BASE}/sync`,
    {
      schema: {
        tags,
        summary: "Restore a project's skills to match its toolyard.lock.yaml",
        body: SyncBody,
        response: { 200: SyncResult, 400: ErrorSchema, 403: ErrorSchema, 501: ErrorSchema },
      },
    },
    (request) => sync.sync(request.body),
  );
  app.get(
    `${BASE}/:name`,
    { schema: { tags, summary: 'Details of an installed skill', params: NameParam, querystring: ScopeQuerystring, response: { 200: SkillDetails, 400: ErrorSchema, 404: ErrorSchema } } },
    async (request) => {
      const record = await installs.get(request.params.name, request.query);
      const installed = skillView(record);
      return { installed_skill: installed, metadata: installed.metadata, provenance: record.provenance, unsigned: record.unsigned };
    },
  );
  app.delete(
    `${BASE}/:name`,
    { schema: { tags, summary: "Uninstall a skill from every client it was installed for", params: NameParam, querystring: ScopeQuerystring, response: { 204: NoContent, 400: ErrorSchema, 404: ErrorSchema } } },
    async (request, reply) => {
      await installs.uninstall(request.params.name, request.query);
      return reply.code(204).send(null);
    },
  );
}
