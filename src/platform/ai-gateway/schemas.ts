import { Type, type Static } from '@sinclair/typebox';

/** A model of the AI gateway (the document's Model record). */
export const AiModelSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer({ description: "the catalog version's effective_from, Unix seconds" }),
  owned_by: Type.String({ description: 'the first configured provider serving it' }),
  display_name: Type.String(),
  context_window: Type.Integer({ description: 'the maxInputTokens the LLM gateway resolves for it' }),
});
export type AiModel = Static<typeof AiModelSchema>;

export const AiModelListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(AiModelSchema) });
export type AiModelList = Static<typeof AiModelListSchema>;

export const GatewayIdentitySchema = Type.Object({ name: Type.String(), namespace: Type.String() });

export const McpServerListSchema = Type.Object({
  items: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), ready: Type.Boolean() }), { description: 'always empty in this version' }),
});

export const CallerIdentitySchema = Type.Object({
  subject: Type.String(),
  email: Type.String(),
  groups: Type.Array(Type.String()),
  roles: Type.Array(Type.String()),
  matchedPolicies: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), mcpPolicy: Type.Object({ servers: Type.Array(Type.String()) }) })),
  models: Type.Array(Type.String()),
  unrestrictedModels: Type.Boolean(),
});
export type CallerIdentity = Static<typeof CallerIdentitySchema>;
