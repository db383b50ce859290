import { DomainError } from '../../core/errors.js';
import type { SecretRef } from '../connector-idps/schemas.js';
import type { ManagedSecrets } from '../secrets/index.js';
import { CredentialError } from './credentials.js';

export type ClusterSecretRef = NonNullable<SecretRef['cluster_secret']>;

/** Kubernetes Secrets of the discovery cluster (PLATFORM-API Part 4 §3: read at use time). */
export interface ClusterSecrets {
  /** The decoded value of `key`; throws an Error whose message names what is missing (never a value). */
  read(ref: ClusterSecretRef): Promise<string>;
}

export interface SecretValues {
  /** The value a connector's secret reference names; throws CredentialError naming `field` and why. */
  valueOf(field: string, ref: SecretRef): Promise<string>;
}

export function createSecretValues(options: { secrets: ManagedSecrets; cluster: ClusterSecrets | undefined }): SecretValues {
  const { secrets, cluster } = options;
  return {
    async valueOf(field, ref) {
      if (ref.managed_secret_id !== null) {
        try {
          return await secrets.reveal(ref.managed_secret_id);
        } catch (error) {
          // the reader's messages name the secret and what is wrong with the key, never the value
          if (error instanceof DomainError) throw new CredentialError(`${field}: ${error.message}`);
          throw error;
        }
      }
      const where = ref.cluster_secret;
      if (where === null) throw new CredentialError(`${field}: the connector names no secret`);
      const named = `key "${where.key}" of Secret ${where.namespace}/${where.name}`;
      if (!cluster) throw new CredentialError(`${field}: the cluster secret (${named}) cannot be read: connectorGateway.discovery is not configured`);
      try {
        return await cluster.read(where);
      } catch (error) {
        throw new CredentialError(`${field}: cannot read ${named} from the discovery cluster: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
