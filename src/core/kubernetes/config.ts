import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesSourceConfig } from './schema.js';

/** The kubeconfig file of the block, else KUBECONFIG, else the pod's service account. */
export function loadKubeConfig(config: Pick<KubernetesSourceConfig, 'kubeconfig'>, env: Record<string, string | undefined>): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (config.kubeconfig !== undefined) kubeConfig.loadFromFile(config.kubeconfig);
  else if (env.KUBECONFIG) kubeConfig.loadFromDefault();
  else if (env.KUBERNETES_SERVICE_HOST) kubeConfig.loadFromCluster();
  else throw new Error('no kubeconfig key, no KUBECONFIG variable, and not running in a cluster');
  return kubeConfig;
}
