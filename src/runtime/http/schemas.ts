import { Type } from '@sinclair/typebox';
import { ErrorSchema } from '../../core/http/schemas.js';
import { CreatedWorkload, Group, RunConfig, WorkloadDetails, WorkloadSummary } from '../workloads/schemas.js';

/**
 * The response contracts under their own names, so the OpenAPI document lists them as components.
 * Bodies stay inline: they are validated by the app's own Ajv, which does not see shared schemas.
 */
export const WorkloadDetailsSchema = Type.Object(WorkloadDetails.properties, {
  $id: 'WorkloadDetails',
  description: 'The create body as saved, with the name and group filled in: GET it, change it, POST it to /edit.',
});
export const WorkloadSummarySchema = Type.Object(WorkloadSummary.properties, { $id: 'WorkloadSummary' });
export const RunConfigSchema = Type.Object(RunConfig.properties, {
  $id: 'RunConfig',
  description: 'The full run configuration; secrets appear as references {name, target} only.',
});
export const CreatedWorkloadSchema = Type.Object(CreatedWorkload.properties, { $id: 'CreatedWorkload' });
export const GroupSchema = Type.Object(Group.properties, { $id: 'Group' });

/** Every schema the routes refer to by `ref`. */
export const SHARED_SCHEMAS = [ErrorSchema, WorkloadDetailsSchema, WorkloadSummarySchema, RunConfigSchema, CreatedWorkloadSchema, GroupSchema];
