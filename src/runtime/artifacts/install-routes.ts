import { Type, type TSchema } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import type { ContentPreview, InstallRequest, InstallService } from './installs.js';
import type { KindSpec } from './kinds.js';
import { ContentQuerystring, ListQuerystring, NameParam, ScopeQuerystring, SyncBody, SyncResult, UpgradeBody, UpgradeResult } from './schemas.js';
import type { UpgradeService } from './upgrade.js';
import type { InstallRecord } from './store.js';
import type { SyncService } from './sync.js';

/** How one kind's records and previews look in the API (skills and plugins differ only here). */
export interface KindViews {
  schemas: { installed: TSchema; installResponse: TSchema; list: TSchema; details: TSchema; content: TSchema; installBody: TSchema };
  /** The key of the install response holding the record: `skill` or `plugin`. */
  installedKey: string;
  installed: (record: InstallRecord) => unknown;
  details: (record: InstallRecord) => Promise<unknown>;
  content: (preview: ContentPreview) => unknown;
}

const NoContent = Type.Null({ description: 'done' });
const upstream = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, 429: ErrorSchema, 502: ErrorSchema, 504: ErrorSchema };

/** Content preview, install, list, details, uninstall and sync of one kind (clarification point 1). */
export function registerInstallRoutes(app: HttpApp, deps: { spec: KindSpec; installs: InstallService; sync: SyncService; upgrades: UpgradeService; views: KindViews }): void {
  const { spec, installs, sync, upgrades, views } = deps;
  const base = `/api/v1beta/${spec.kind}`;
  const tags = [spec.kind];
  app.get(
    `${base}/content`,
    { schema: { tags, summary: `Preview a ${spec.singular} without installing it`, querystring: ContentQuerystring, response: { 200: views.schemas.content, ...upstream } } },
    async (request) => views.content(await installs.content(request.query.ref, request.query.marketplace)),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        summary: `Install a ${spec.singular} for each selected client`,
        body: views.schemas.installBody,
        response: { 201: views.schemas.installResponse, ...upstream, 403: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const body = request.body as InstallRequest & Record<string, unknown>;
      const record = await installs.install(body);
      const query = new URLSearchParams({ scope: record.scope, ...(record.project_root !== '' && { project_root: record.project_root }) });
      void reply.code(201).header('location', `${base}/${encodeURIComponent(record.name)}?${query.toString()}`);
      return { [views.installedKey]: views.installed(record), provenance: record.provenance, unsigned: record.unsigned };
    },
  );
  app.get(
    base,
    { schema: { tags, summary: `List installed ${spec.kind} (all scopes unless scope is given)`, querystring: ListQuerystring, response: { 200: views.schemas.list } } },
    async (request) => ({ [spec.kind]: (await installs.list(request.query)).map(views.installed) }),
  );
  app.post(
    `${base}/sync`,
    {
      schema: {
        tags,
        summary: `Restore a project's ${spec.kind} to match its toolyard.lock.yaml`,
        body: SyncBody,
        response: { 200: SyncResult, 400: ErrorSchema, 403: ErrorSchema, 501: ErrorSchema },
      },
    },
    (request) => sync.sync(request.body),
  );
  app.post(
    `${base}/upgrade`,
    {
      schema: {
        tags,
        summary: `Move a project's ${spec.kind} to what their sources name now`,
        body: UpgradeBody,
        response: { 200: UpgradeResult, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 501: ErrorSchema },
      },
    },
    (request) => upgrades.upgrade(request.body),
  );
  app.get(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: `Details of an installed ${spec.singular}`,
        params: NameParam,
        querystring: ScopeQuerystring,
        response: { 200: views.schemas.details, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request) => views.details(await installs.get(request.params.name, request.query)),
  );
  app.delete(
    `${base}/:name`,
    {
      schema: {
        tags,
        summary: `Uninstall a ${spec.singular} from every client it was installed for`,
        params: NameParam,
        querystring: ScopeQuerystring,
        response: { 204: NoContent, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      await installs.uninstall(request.params.name, request.query);
      return reply.code(204).send(null);
    },
  );
}
