import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { InvalidInputError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { CreatedWorkloadSchema, RunConfigSchema, WorkloadDetailsSchema, WorkloadSummarySchema } from '../http/schemas.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { Name, WorkloadRequest } from './schemas.js';
import type { Accepted } from './lifecycle.js';
import type { WorkloadService } from './service.js';

export const API_PREFIX = '/api/v1beta';

/** Path names are checked like created names, so no spelling of one can point outside the state files. */
export const NameParam = Type.Object({ name: Name });
const ListQuery = Type.Object({
  all: Type.Optional(Type.Boolean({ default: false, description: 'include workloads that are not running' })),
  group: Type.Optional(Type.String({ ...Name, description: 'only the workloads of this group' })),
});
const BulkBody = Type.Object(
  {
    names: Type.Optional(Type.Array(Name, { description: 'the workloads to act on' })),
    group: Type.Optional(Type.String({ ...Name, description: 'act on every workload of this group' })),
  },
  { additionalProperties: false, description: 'exactly one of names (not empty) and group' },
);
const Status = Type.Object({ status: Type.String(), status_context: Type.String() });
const Text = { content: { 'text/plain': { schema: Type.String({ description: 'the last 1000 lines' }) } } };
// no body at all: typed as undefined so that `send()` needs no payload, documented as no content
const AcceptedReply = Type.Unsafe<undefined>({ type: 'null', description: 'accepted: the work goes on in the background' });
const errors = { 400: ErrorSchema, 404: ErrorSchema };
const tags = ['workloads'];

/** The workload routes: parse, call the service, map the result. Long work is answered 202 and not awaited. */
export function registerWorkloadRoutes(app: HttpApp, workloads: WorkloadService, logger: Logger): void {
  const inBackground = (action: string, names: readonly string[], accepted: Accepted): void => {
    accepted.done.catch((error: unknown) => logger.warn({ err: error, action, names }, 'workload operation failed'));
  };

  app.post(
    `${API_PREFIX}/workloads`,
    { schema: { tags, summary: 'Create and start a workload', body: WorkloadRequest, response: { 201: ref(CreatedWorkloadSchema), 409: ErrorSchema, ...errors } } },
    async (request, reply) => reply.code(201).send(await workloads.create(request.body)),
  );
  app.get(
    `${API_PREFIX}/workloads`,
    { schema: { tags, summary: 'List workloads (only running ones unless all=true)', querystring: ListQuery, response: { 200: Type.Object({ workloads: Type.Array(ref(WorkloadSummarySchema)) }), ...errors } } },
    async (request) => ({ workloads: await workloads.list({ all: request.query.all ?? false, ...(request.query.group !== undefined && { group: request.query.group }) }) }),
  );

  for (const [action, verb] of [['stop', 'Stop'], ['restart', 'Restart'], ['delete', 'Delete']] as const) {
    app.post(
      `${API_PREFIX}/workloads/${action}`,
      { schema: { tags, summary: `${verb} workloads by names or by group`, body: BulkBody, response: { 202: AcceptedReply, ...errors } } },
      async (request, reply) => {
        const names = request.body.names ?? [];
        const { group } = request.body;
        if ((names.length > 0) === (group !== undefined)) throw new InvalidInputError('give either names (a non-empty list) or group, not both');
        const targets = group === undefined ? names : await workloads.namesInGroup(group);
        inBackground(action, targets, await bulk(workloads, action, targets));
        return reply.code(202).send();
      },
    );
  }

  app.get(
    `${API_PREFIX}/workloads/:name`,
    { schema: { tags, summary: 'Workload details: the create body as saved', params: NameParam, response: { 200: ref(WorkloadDetailsSchema), ...errors } } },
    (request) => workloads.get(request.params.name),
  );
  app.get(
    `${API_PREFIX}/workloads/:name/export`,
    { schema: { tags, summary: 'The full run configuration', params: NameParam, response: { 200: ref(RunConfigSchema), ...errors } } },
    (request) => workloads.exportConfig(request.params.name),
  );
  app.post(
    `${API_PREFIX}/workloads/:name/edit`,
    { schema: { tags, summary: 'Update a workload (its port is kept) and restart it', params: NameParam, body: WorkloadRequest, response: { 200: ref(CreatedWorkloadSchema), ...errors } } },
    (request) => workloads.update(request.params.name, request.body),
  );
  app.get(
    `${API_PREFIX}/workloads/:name/status`,
    { schema: { tags, summary: 'Status, checked against the processes', params: NameParam, response: { 200: Status, ...errors } } },
    (request) => workloads.status(request.params.name),
  );
  app.get(
    `${API_PREFIX}/workloads/:name/logs`,
    { schema: { tags, summary: "The MCP server's own output (stdout and stderr)", params: NameParam, response: { 200: Text, ...errors } } },
    async (request, reply) => reply.type('text/plain; charset=utf-8').send(await workloads.logs(request.params.name, 'server')),
  );
  app.get(
    `${API_PREFIX}/workloads/:name/proxy-logs`,
    { schema: { tags, summary: "The supervisor's and proxy's log", params: NameParam, response: { 200: Text, ...errors } } },
    async (request, reply) => reply.type('text/plain; charset=utf-8').send(await workloads.logs(request.params.name, 'proxy')),
  );
  for (const action of ['stop', 'restart'] as const) {
    app.post(
      `${API_PREFIX}/workloads/:name/${action}`,
      { schema: { tags, summary: `${action === 'stop' ? 'Stop' : 'Restart'} a workload`, params: NameParam, response: { 202: AcceptedReply, ...errors } } },
      async (request, reply) => {
        const names = [request.params.name];
        inBackground(action, names, await bulk(workloads, action, names));
        return reply.code(202).send();
      },
    );
  }
  app.delete(
    `${API_PREFIX}/workloads/:name`,
    { schema: { tags, summary: 'Stop and delete a workload', params: NameParam, response: { 202: AcceptedReply, ...errors } } },
    async (request, reply) => {
      const names = [request.params.name];
      inBackground('delete', names, await workloads.remove(names));
      return reply.code(202).send();
    },
  );
}

function bulk(workloads: WorkloadService, action: 'stop' | 'restart' | 'delete', names: readonly string[]): Promise<Accepted> {
  if (action === 'stop') return workloads.stop(names);
  if (action === 'restart') return workloads.restart(names);
  return workloads.remove(names);
}
