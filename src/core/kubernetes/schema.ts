import { Type, type Static } from '@sinclair/typebox';

export const KubernetesResourceSchema = Type.Object(
  {
    group: Type.String({ minLength: 1, description: 'API group of the custom resource (example: toolyard.dev)' }),
    version: Type.String({ minLength: 1, description: 'API version of the custom resource (example: v1alpha1)' }),
    plural: Type.String({ minLength: 1, description: 'plural resource name, as in the URL path (example: mcpservers)' }),
  },
  { additionalProperties: false, description: 'a custom resource kind whose annotated objects are exported' },
);

export const KubernetesSourceSchema = Type.Object(
  {
    namespaces: Type.Optional(
      Type.Array(Type.String({ minLength: 1, description: 'a namespace to watch' }), {
        description: 'namespaces to watch; empty or absent watches every namespace the service account may read',
      }),
    ),
    resources: Type.Optional(
      Type.Array(KubernetesResourceSchema, { description: 'custom resources watched besides core Services' }),
    ),
    kubeconfig: Type.Optional(
      Type.String({ minLength: 1, description: 'kubeconfig file to use; default the KUBECONFIG environment variable, then the in-cluster service account' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'servers discovered in a Kubernetes cluster: Services and custom resources annotated toolyard.dev/registry-export: "true"',
  },
);

export type KubernetesSourceConfig = Static<typeof KubernetesSourceSchema>;
export type KubernetesResource = Static<typeof KubernetesResourceSchema>;
