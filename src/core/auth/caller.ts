/** Who is calling. Every service method takes one, so authorization can wrap services without changing them. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'user'; subject: string; claims: Record<string, unknown>; /** the configured provider that verified the token */ provider?: string };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
