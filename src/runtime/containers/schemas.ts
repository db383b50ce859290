import { Type, type Static } from '@sinclair/typebox';

/**
 * A permission profile, as catalog entries carry it (`permissions`) and as a JSON file named by
 * `permission_profile`: paths the server may read or write (`path`, or `host:container`), whether it
 * runs privileged, and the network it may reach.
 */
export const PermissionProfile = Type.Object({
  name: Type.Optional(Type.String()),
  read: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  write: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  privileged: Type.Optional(Type.Boolean()),
  network: Type.Optional(
    Type.Object({
      outbound: Type.Optional(
        Type.Object({
          insecure_allow_all: Type.Optional(Type.Boolean()),
          allow_host: Type.Optional(Type.Array(Type.String())),
          allow_port: Type.Optional(Type.Array(Type.Integer())),
        }),
      ),
    }),
  ),
});
export type PermissionProfile = Static<typeof PermissionProfile>;

/** What the container runner needs besides its environment: the engine, the container's name, and the create body without the values of its variables. */
export const ContainerRunSpec = Type.Object({
  socketPath: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  /** Variables whose values the runner takes from its own environment (the workload's env vars and secrets). */
  envNames: Type.Array(Type.String()),
  labels: Type.Record(Type.String(), Type.String()),
  body: Type.Unknown(),
});
export type ContainerRunSpec = Static<typeof ContainerRunSpec>;
