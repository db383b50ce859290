import { testDatabaseTargets, type TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import { startFakeKubernetes, type FakeKubernetes } from '../helpers/fake-kubernetes.js';

/** The collection of AIPolicy objects in the fake API server. */
export const AIPOLICIES = 'toolyard.dev/v1alpha1/aipolicies';

/** Where the AI policies of a test platform live: the database, or the fake API server (with a database for audit and page tokens). */
export interface PolicyBackendCase {
  name: string;
  target: TestDatabaseTarget;
  kubernetes: boolean;
}

/** Both backends, with the policies' database on `target`. */
export function policyBackendsOn(target: TestDatabaseTarget): PolicyBackendCase[] {
  return [
    { name: `database on ${target.name}`, target, kubernetes: false },
    { name: `kubernetes (fake API server) on ${target.name}`, target, kubernetes: true },
  ];
}

/** The database backend on every test database, and the Kubernetes backend against the fake API server on the first. */
export function aiPolicyBackends(): PolicyBackendCase[] {
  return testDatabaseTargets().flatMap((target, index) => policyBackendsOn(target).filter((backend) => index === 0 || !backend.kubernetes));
}

/** The `aiGateway` keys that select the backend of `backend`, and the fake API server it talks to. */
export async function backendSettings(backend: PolicyBackendCase): Promise<{ settings: Record<string, unknown>; kube?: FakeKubernetes }> {
  if (!backend.kubernetes) return { settings: {} };
  const kube = await startFakeKubernetes();
  return { settings: { backend: 'kubernetes', kubernetes: { kubeconfig: await kube.writeKubeconfig() } }, kube };
}
