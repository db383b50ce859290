import { Type, type Static } from '@sinclair/typebox';

/*
 * The AI policy resource as responses carry it (PLATFORM-API Part 5 §2; the document's AI policy record),
 * Kubernetes style: empty maps and absent optional members are omitted.
 */

const ClaimsSchema = Type.Record(Type.String(), Type.String(), { description: 'claim name → the exact value the token must carry' });

export const PolicySpecSchema = Type.Object({
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  gatewayRef: Type.Object({ name: Type.String({ description: 'the gateway this policy applies to' }) }),
  mcpPolicy: Type.Optional(Type.Object({ servers: Type.Optional(Type.Array(Type.String(), { description: 'connector names, or "*" for every connector' })) })),
  principalMatchers: Type.Array(Type.Object({ claims: ClaimsSchema }), { description: 'a caller matching any one matcher (all of its claims) is matched' }),
});
export type PolicySpec = Static<typeof PolicySpecSchema>;

export const ConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
  reason: Type.String(),
  message: Type.String(),
  observedGeneration: Type.Integer(),
  lastTransitionTime: Type.String(),
});
export type Condition = Static<typeof ConditionSchema>;

export const PolicyStatusSchema = Type.Object({
  appliedToSecurityPolicy: Type.Boolean(),
  conditions: Type.Array(ConditionSchema),
  observedGeneration: Type.Integer(),
});
export type PolicyStatus = Static<typeof PolicyStatusSchema>;

export const AiPolicySchema = Type.Object(
  {
    apiVersion: Type.Literal('toolyard.dev/v1alpha1'),
    kind: Type.Literal('AIPolicy'),
    metadata: Type.Object({
      name: Type.String(),
      namespace: Type.String(),
      uid: Type.String(),
      resourceVersion: Type.String(),
      generation: Type.Integer(),
      creationTimestamp: Type.String(),
      labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
      deletionTimestamp: Type.Optional(Type.String()),
      deletionGracePeriodSeconds: Type.Optional(Type.Integer()),
    }),
    spec: PolicySpecSchema,
    status: PolicyStatusSchema,
  },
  { $id: 'AIPolicy' },
);
export type AiPolicy = Static<typeof AiPolicySchema>;

export const AiPolicyListSchema = Type.Object({
  apiVersion: Type.Literal('toolyard.dev/v1alpha1'),
  kind: Type.Literal('AIPolicyList'),
  items: Type.Array(Type.Ref('AIPolicy')),
  nextPageToken: Type.String({ description: '"" on the last page' }),
  remainingItemCount: Type.Optional(Type.Integer({ description: 'policies after this page; only without filters' })),
});

export const AiErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'a short code: bad_request, unauthenticated, forbidden, not_found, ...' }),
    message: Type.String(),
    requestId: Type.String(),
    violations: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
  },
  { $id: 'AiGatewayError' },
);

export const ListQuerySchema = Type.Object({
  limit: Type.Optional(Type.String({ description: '1 to 500 (above is read as 500); default 500' })),
  pageToken: Type.Optional(Type.String()),
  labelSelector: Type.Optional(Type.String({ description: 'Kubernetes label selector' })),
  gatewayRef: Type.Optional(Type.String({ description: 'only policies naming this gateway (applied after the page is taken)' })),
});
export type ListQuery = Static<typeof ListQuerySchema>;

export const NameParamsSchema = Type.Object({ name: Type.String() });
