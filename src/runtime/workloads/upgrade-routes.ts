import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { API_PREFIX, NameParam } from './routes.js';
import { Name, UpgradeCheckResult, UpgradeOptions } from './schemas.js';
import type { UpgradeService } from './upgrades.js';

const CheckAllQuery = Type.Object({
  all: Type.Optional(Type.Boolean({ default: false, description: 'include workloads that are not running' })),
  group: Type.Optional(Type.String({ ...Name, description: 'only the workloads of this group' })),
});
const Result = Type.Object({ result: UpgradeCheckResult });
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
        response: { 200: Type.Object({ results: Type.Array(UpgradeCheckResult) }), 400: ErrorSchema, 404: ErrorSchema },
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
