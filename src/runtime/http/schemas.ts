import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CreatedWorkload, RunConfig, WorkloadRequest, WorkloadSummary } from '../workloads/schemas.js';

/** A reference to a schema registered with `addSchema`, typed as the schema itself. */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schema.$id ?? ''));

export const ErrorSchema = Type.Object({ error: Type.String() }, { $id: 'Error', description: 'what went wrong, for a person to act on' });

/**
 * The response contracts under their own names, so the OpenAPI document lists them as components.
 * Bodies stay inline: they are validated by the app's own Ajv, which does not see shared schemas.
 */
export const WorkloadDetailsSchema = Type.Object(
  { ...WorkloadRequest.properties, name: Type.String(), group: Type.String() },
  { $id: 'WorkloadDetails', description: 'The create body as saved, with the name and group filled in: GET it, change it, POST it to /edit.' },
);
export const WorkloadSummarySchema = Type.Object(WorkloadSummary.properties, { $id: 'WorkloadSummary' });
export const RunConfigSchema = Type.Object(RunConfig.properties, {
  $id: 'RunConfig',
  description: 'The full run configuration; secrets appear as references {name, target} only.',
});
export const CreatedWorkloadSchema = Type.Object(CreatedWorkload.properties, { $id: 'CreatedWorkload' });
export const GroupSchema = Type.Object(
  { name: Type.String(), registered_clients: Type.Array(Type.String(), { description: 'client apps configured with this group' }) },
  { $id: 'Group' },
);

/** Every schema the routes refer to by `ref`. */
export const SHARED_SCHEMAS = [ErrorSchema, WorkloadDetailsSchema, WorkloadSummarySchema, RunConfigSchema, CreatedWorkloadSchema, GroupSchema];

export const NameParams = Type.Object({ name: Type.String({ description: 'the workload or group name' }) });
