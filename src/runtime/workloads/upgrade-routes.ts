import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { EnvVarDeclarationSchema } from './registry-source.js';
import { API_PREFIX, NameParam } from './routes.js';
import { UPGRADE_STATUSES, UpgradeOptions, type UpgradeService } from './upgrades.js';

const Permissions = Type.Record(Type.String(), Type.Unknown(), { description: "a catalog entry's permissions" });

export const UpgradeCheckResultSchema = Type.Object(
  {
    workload_name: Type.String(),
    registry_server: Type.String({ description: 'the catalog entry the workload was made from; empty when it was not' }),
    current_image: Type.String({ description: 'what runs (a remote server: its url); for status upgraded, what ran before' }),
    candidate_image: Type.String({ description: "the catalog's newest entry; empty when there is none; for status upgraded, what runs now" }),
    status: Type.Union(UPGRADE_STATUSES.map((status) => Type.Literal(status))),
    reason: Type.String(),
    env_var_drift: Type.Object(
      { added: Type.Array(EnvVarDeclarationSchema), removed: Type.Array(EnvVarDeclarationSchema) },
      { description: "the candidate's env var declarations against those of the entry the workload was made from" },
    ),
    config_drift: Type.Object(
      {
        transport: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
        permission_profile: Type.Optional(Type.Object({ from: Permissions, to: Permissions })),
      },
      { description: 'only the settings that the upgrade changes' },
    ),
  },
  { description: 'An offline comparison of the workload with the newest catalog entry of its server' },
);

const CheckAllQuery = Type.Object({
  all: Type.Optional(Type.Boolean({ default: false, description: 'include workloads that are not running' })),
  group: Type.Optional(Type.String({ description: 'only the workloads of this group' })),
});
const Result = Type.Object({ result: UpgradeCheckResultSchema });
const tags = ['workloads'];

export interface UpgradeRouteDeps {
  upgrades: UpgradeService;
}

/** Registry-driven upgrades: offline checks, and an apply that prepares the candidate before touching the workload. */
export function registerUpgradeRoutes(app: HttpApp, deps: UpgradeRouteDeps): void {
  const { upgrades } = deps;
  app.get(
    `${API_PREFIX}/workloads/upgrade-check`,
    {
      schema: {
        tags,
        summary: 'Check workloads for upgrades (only running ones unless all=true)',
        querystring: CheckAllQuery,
        response: { 200: Type.Object({ results: Type.Array(UpgradeCheckResultSchema) }), 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request) => ({
      results: await upgrades.checkAll({ all: request.query.all ?? false, ...(request.query.group !== undefined && { group: request.query.group }) }),
    }),
  );
  app.get(
    `${API_PREFIX}/workloads/:name/upgrade-check`,
    {
      schema: {
        tags,
        summary: 'Check one workload for an upgrade (offline: nothing is fetched)',
        params: NameParam,
        response: { 200: Result, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request) => ({ result: await upgrades.check(request.params.name) }),
  );
  app.post(
    `${API_PREFIX}/workloads/:name/upgrade`,
    {
      schema: {
        tags,
        summary: 'Upgrade a workload to the newest catalog entry, keeping its configuration and port',
        description:
          'A no-op returning the check when the workload is up to date or not from a registry. Otherwise the candidate is installed first; ' +
          'when that fails the answer is 422 and the workload is unchanged. Secrets are references {name, target}; values are refused.',
        params: NameParam,
        body: UpgradeOptions,
        response: { 200: Result, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
      },
      // the body is optional: none at all means no options
      preValidation: (request, _reply, done) => {
        const given: unknown = request.body;
        if (given === undefined) request.body = {};
        done();
      },
    },
    async (request) => ({ result: await upgrades.apply(request.params.name, request.body) }),
  );
}
