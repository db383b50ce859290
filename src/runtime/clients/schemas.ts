import { Type, type Static } from '@sinclair/typebox';
import { CLIENT_TYPES } from './catalog.js';

export const ClientStatus = Type.Object({
  client_type: Type.Union(CLIENT_TYPES.map((type) => Type.Literal(type))),
  installed: Type.Boolean({ description: "the client's configuration directory or file exists" }),
  registered: Type.Boolean(),
  supports_skills: Type.Boolean(),
  supports_plugins: Type.Boolean(),
});
export type ClientStatus = Static<typeof ClientStatus>;

export const ClientRegistration = Type.Object({ name: Type.String(), groups: Type.Array(Type.String()) });
export type ClientRegistration = Static<typeof ClientRegistration>;

/** What Toolyard wrote into one client's file (`<state>/clients/<client>.json`): only these entries are ever changed or removed. */
export const Ownership = Type.Object({
  /** The file the entries are in; entries recorded for another path (XDG moved) are not ours here. */
  file: Type.String(),
  servers: Type.Array(Type.String()),
  /** Toolyard added the servers key itself, so it removes it again once it is empty. */
  created_key: Type.Boolean(),
});
export type Ownership = Static<typeof Ownership>;
