import { Type, type Static } from '@sinclair/typebox';

export const PublicJwkSchema = Type.Object({
  kty: Type.Literal('EC'),
  crv: Type.Literal('P-256'),
  x: Type.String(),
  y: Type.String(),
  kid: Type.String(),
  alg: Type.Literal('ES256'),
  use: Type.Literal('sig'),
});

export const JwksSchema = Type.Object({ keys: Type.Array(PublicJwkSchema) }, { description: 'every public key of the signing set' });

export type PublicJwk = Static<typeof PublicJwkSchema>;
