import { ForbiddenError } from '../../core/errors.js';
import type { RegistryService } from '../registry/service.js';
import type { SettingsStore } from '../registry/settings.js';
import type { RegistryUpdate } from '../registry/schemas.js';
import { registryReferenceOf } from '../workloads/run-config.js';
import type { WorkloadService } from '../workloads/service.js';
import type { WorkloadRequest } from '../workloads/schemas.js';
import type { AppliedConfiguration, EnterpriseService } from './service.js';

interface RegistryDirective {
  enforced: boolean;
  settings: RegistryUpdate;
}

/** The `registry` directive as the runtime's own registry settings: its `api_url` (the MCP Registry API base). */
function registryDirective(applied: AppliedConfiguration | undefined): RegistryDirective | undefined {
  const directive = applied?.directives.registry;
  const value = directive?.value as { api_url?: unknown; allow_private_ip?: unknown } | undefined;
  if (!directive || typeof value?.api_url !== 'string' || value.api_url === '') return undefined;
  return { enforced: directive.enforcement === 'enforced', settings: { api_url: value.api_url, ...(value.allow_private_ip === true && { allow_private_ip: true }) } };
}

const hasOwnSource = (settings: RegistryUpdate): boolean => Boolean(settings.api_url || settings.url || settings.local_path);

/**
 * The registry settings the catalog reads: an enforced registry directive always; a default one until
 * the user points the registry somewhere themselves. Writes keep going to the user's own settings.
 */
export function withEnterpriseRegistrySettings(own: SettingsStore, enterprise: EnterpriseService): SettingsStore {
  return {
    read: async () => {
      const [settings, directive] = await Promise.all([own.read(), enterprise.applied().then(registryDirective)]);
      if (!directive || (!directive.enforced && hasOwnSource(settings))) return settings;
      return directive.settings;
    },
    write: (settings) => own.write(settings),
  };
}

/** Refuses a local change of the registry while the enterprise configuration enforces one. */
export function withEnterpriseRegistry(registry: RegistryService, enterprise: EnterpriseService): RegistryService {
  return {
    ...registry,
    update: async (name, update) => {
      const directive = registryDirective(await enterprise.applied());
      if (directive?.enforced) {
        throw new ForbiddenError(`the enterprise configuration enforces the directive "registry" (${directive.settings.api_url ?? ''}): the registry cannot be changed here; ask your administrator`);
      }
      return registry.update(name, update);
    },
  };
}

/**
 * Refuses workloads that the enterprise configuration does not allow: a server not from the registry
 * catalog while `non_registry_servers` is enforced false, and any new workload when degraded mode
 * `block_new` applies (running ones go on).
 */
export function withEnterpriseWorkloads(workloads: WorkloadService, enterprise: EnterpriseService): WorkloadService {
  const allowed = async (request: WorkloadRequest, isNew: boolean): Promise<void> => {
    const applied = await enterprise.applied();
    if (!applied) return;
    const directive = applied.directives.non_registry_servers;
    if (directive?.enforcement === 'enforced' && directive.value === false && registryReferenceOf(request) === undefined) {
      throw new ForbiddenError('the enterprise configuration enforces the directive "non_registry_servers" = false: only servers from the registry catalog may run (give {registry, server}, or toolyard run <catalog name>)');
    }
    if (isNew && applied.verdict.blocksNew) {
      const message = applied.verdict.message === '' ? '' : ` ${applied.verdict.message}`;
      throw new ForbiddenError(`the enterprise configuration's degraded_mode (policy block_new) refuses new workloads: ${applied.verdict.reason}.${message}`);
    }
  };
  return {
    ...workloads,
    create: async (request) => {
      await allowed(request, true);
      return workloads.create(request);
    },
    update: async (name, request, options) => {
      await allowed(request, false);
      return workloads.update(name, request, options);
    },
  };
}
