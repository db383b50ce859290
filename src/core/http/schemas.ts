import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** A reference to a schema registered with `addSchema`, typed as the schema itself. */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schema.$id ?? ''));

/** The `{error}` body every 4xx and 5xx of the registry server, the runtime and the platform carries. */
export const ErrorSchema = Type.Object({ error: Type.String() }, { $id: 'Error', description: 'what went wrong, for a person to act on' });
