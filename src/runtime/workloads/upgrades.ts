import { isDeepStrictEqual } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import validVersion from 'semver/functions/valid.js';
import coerceVersion from 'semver/functions/coerce.js';
import compareVersions from 'semver/functions/compare.js';
import { DomainError, InvalidInputError, NotFoundError, UnavailableError } from '../../core/errors.js';
import type { PackageRuntimes } from '../packages/types.js';
import { parseProtocolImage } from '../packages/schemes.js';
import type { EnvVarDeclaration } from '../registry/schemas.js';
import type { RegistryLookup } from '../registry/types.js';
import type { SecretReader } from '../secrets/environment.js';
import { DEFAULT_REGISTRY, applyEntry, entryOf, registryEntryOf } from './registry-source.js';
import { UpgradeOptions, type RegistryEntry, type RunConfig, type UpgradeCheckResult, type UpgradeStatus, type WorkloadRequest } from './schemas.js';
import type { WorkloadListQuery, WorkloadService } from './service.js';

/** The candidate cannot be resolved or prepared; the workload was left as it was. */
export class UpgradeNotPossibleError extends DomainError {
  constructor(message: string) {
    super(message, 422);
  }
}

export interface UpgradeService {
  check: (name: string) => Promise<UpgradeCheckResult>;
  /** Running workloads only unless `all`; an unknown group is a NotFoundError. */
  checkAll: (query: WorkloadListQuery) => Promise<UpgradeCheckResult[]>;
  /**
   * A no-op returning the check when up to date or not registry-sourced; otherwise prepares the
   * candidate first (UpgradeNotPossibleError, 422, when it cannot be) and only then recreates the
   * workload with it, keeping its configuration, port and secret references.
   */
  apply: (name: string, options?: UpgradeOptions) => Promise<UpgradeCheckResult>;
}

export interface UpgradeServiceOptions {
  workloads: WorkloadService;
  registry: RegistryLookup;
  packages: PackageRuntimes;
  secrets: SecretReader;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

interface ImageParts {
  repository: string;
  tag: string;
  digest: boolean;
}

/** `npx://@scope/pkg@1.2.0` → `npx://@scope/pkg` + `1.2.0`; `ghcr.io/acme/x:1.2` → `ghcr.io/acme/x` + `1.2`; no tag is `latest`. */
export function imageParts(image: string): ImageParts {
  const protocol = parseProtocolImage(image);
  if (protocol !== undefined) {
    const { reference } = protocol;
    const at = reference.indexOf('@', reference.startsWith('@') ? 1 : 0);
    const tag = at > 0 ? reference.slice(at + 1) : '';
    return { repository: `${protocol.scheme}://${at > 0 ? reference.slice(0, at) : reference}`, tag: tag === '' ? 'latest' : tag, digest: false };
  }
  const digestAt = image.indexOf('@');
  if (digestAt >= 0) return { ...imageParts(image.slice(0, digestAt)), tag: image.slice(digestAt + 1), digest: true };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { repository: image.slice(0, colon), tag: image.slice(colon + 1), digest: false };
  return { repository: image, tag: 'latest', digest: false };
}

/** A semver version from a tag: `v1.2.3`, `1.2.3-rc.1`, and the short `1.2` or `3` read as `1.2.0` and `3.0.0`. */
function versionOf(tag: string): string | undefined {
  const valid = validVersion(tag);
  if (valid !== null) return valid;
  return /^v?\d+(\.\d+)?$/.test(tag) ? (coerceVersion(tag)?.version ?? undefined) : undefined;
}

type Comparison = Pick<UpgradeCheckResult, 'status' | 'reason'>;

/** Offline: the tags of the same package compared as semver versions; anything else cannot be told. */
export function compareImages(current: string, candidate: string, remote: boolean): Comparison {
  if (remote) {
    return current === candidate
      ? { status: 'up-to-date', reason: 'the workload uses the url the catalog names' }
      : { status: 'unknown', reason: `the catalog now names ${candidate} instead of ${current}` };
  }
  const now = imageParts(current);
  const next = imageParts(candidate);
  if (now.repository !== next.repository) {
    return { status: 'unknown', reason: `the catalog entry runs ${next.repository}, a different package than ${now.repository}` };
  }
  if (now.digest || next.digest) return { status: 'unknown', reason: 'an image pinned by digest cannot be compared offline' };
  if (now.tag === 'latest' || next.tag === 'latest') return { status: 'unknown', reason: 'the latest tag cannot be compared offline; pin a version' };
  const from = versionOf(now.tag);
  const to = versionOf(next.tag);
  if (from === undefined || to === undefined) {
    return { status: 'unknown', reason: `tag ${from === undefined ? now.tag : next.tag} is not a semantic version` };
  }
  const order = compareVersions(to, from);
  if (order > 0) return { status: 'upgrade-available', reason: `${next.tag} is newer than ${now.tag}` };
  if (order < 0) return { status: 'up-to-date', reason: `${now.tag} is newer than the catalog's ${next.tag}` };
  return { status: 'up-to-date', reason: `${now.tag} is the catalog's newest version` };
}

function envDrift(before: readonly EnvVarDeclaration[], after: readonly EnvVarDeclaration[]): UpgradeCheckResult['env_var_drift'] {
  const names = (list: readonly EnvVarDeclaration[]) => new Set(list.map((declared) => declared.name));
  const had = names(before);
  const has = names(after);
  return { added: after.filter((declared) => !had.has(declared.name)), removed: before.filter((declared) => !has.has(declared.name)) };
}

/** What would change in the workload: its transport follows the entry unless the body chose one. */
function configDrift(config: RunConfig, kept: RegistryEntry | undefined, candidate: RegistryEntry): UpgradeCheckResult['config_drift'] {
  const transport = config.request.transport ?? candidate.transport;
  const permissions = kept?.permissions ?? {};
  return {
    ...(transport !== config.transport && { transport: { from: config.transport, to: transport } }),
    ...(!isDeepStrictEqual(permissions, candidate.permissions) && { permission_profile: { from: permissions, to: candidate.permissions } }),
  };
}

const imageOf = (config: RunConfig): string => (config.image !== '' ? config.image : config.remote_url);
const candidateOf = (entry: RegistryEntry): string => (entry.remote ? entry.url : entry.image);

/** Secret references of the body replace those with the same target; its env vars are added to the saved ones. */
function withOptions(saved: WorkloadRequest, options: UpgradeOptions): WorkloadRequest {
  const env = { ...saved.env_vars, ...options.env };
  const targets = new Set((options.secrets ?? []).map((ref) => ref.target));
  const secrets = [...(saved.secrets ?? []).filter((ref) => !targets.has(ref.target)), ...(options.secrets ?? [])];
  return { ...saved, ...(Object.keys(env).length > 0 && { env_vars: env }), ...(secrets.length > 0 && { secrets }) };
}

function checkShape(options: UpgradeOptions): void {
  const first = Value.Errors(UpgradeOptions, options).First();
  if (first !== undefined) throw new InvalidInputError(`${first.path === '' ? 'body' : first.path}: ${first.message}`);
}

function checkNoSecretValues(options: UpgradeOptions, candidate: RegistryEntry): void {
  const secret = new Set(candidate.env_vars.filter((declared) => declared.secret).map((declared) => declared.name));
  const plain = Object.keys(options.env ?? {}).filter((name) => secret.has(name));
  if (plain.length > 0) {
    throw new InvalidInputError(`${plain.join(', ')} ${plain.length === 1 ? 'is a secret' : 'are secrets'}: store the value in the secrets provider and pass {name, target} in secrets`);
  }
}

/** Checks and applies registry-driven upgrades of workloads made from the catalog. */
export function createUpgradeService(options: UpgradeServiceOptions): UpgradeService {
  const { workloads, registry, packages, secrets } = options;

  const inspect = async (name: string): Promise<{ config: RunConfig; result: UpgradeCheckResult; candidate?: RegistryEntry }> => {
    const config = await workloads.exportConfig(name);
    const kept = registryEntryOf(config);
    const base: UpgradeCheckResult = {
      workload_name: name,
      registry_server: config.registry_server_name,
      current_image: imageOf(config),
      candidate_image: '',
      status: 'unknown',
      reason: '',
      env_var_drift: { added: [], removed: [] },
      config_drift: {},
    };
    const without = (status: UpgradeStatus, reason: string) => ({ config, result: { ...base, status, reason } });
    if (config.registry_server_name === '') return without('not-registry-sourced', 'the workload was not created from a registry');
    const registryName = kept?.registry ?? config.request.registry ?? DEFAULT_REGISTRY;
    let found;
    try {
      found = await registry.findServer(registryName, config.registry_server_name);
    } catch (error) {
      if (!(error instanceof UnavailableError)) throw error;
      return without('unknown', `registry ${registryName} cannot be read: ${error.message}`);
    }
    if (found === undefined) return without('server-not-found', `server ${config.registry_server_name} is no longer in registry ${registryName}`);
    const candidate = entryOf(registryName, found);
    const result: UpgradeCheckResult = {
      ...base,
      candidate_image: candidateOf(candidate),
      ...compareImages(base.current_image, candidateOf(candidate), candidate.remote),
      env_var_drift: envDrift(kept?.env_vars ?? [], candidate.env_vars),
      config_drift: configDrift(config, kept, candidate),
    };
    return { config, result, candidate };
  };

  const check = async (name: string): Promise<UpgradeCheckResult> => (await inspect(name)).result;

  return {
    check,
    checkAll: async (query) => {
      const names = (await workloads.list(query)).map((summary) => summary.name);
      const results = await Promise.all(
        names.map((name) =>
          check(name).catch((error: unknown) => {
            // removed between the listing and its check
            if (error instanceof NotFoundError) return undefined;
            throw error;
          }),
        ),
      );
      return results.filter((result) => result !== undefined);
    },
    apply: async (name, upgradeOptions = {}) => {
      checkShape(upgradeOptions);
      const { config, result, candidate } = await inspect(name);
      if (result.status === 'up-to-date' || result.status === 'not-registry-sourced') return result;
      if (result.status !== 'upgrade-available' || candidate === undefined) throw new UpgradeNotPossibleError(`cannot upgrade ${name}: ${result.reason}`);
      checkNoSecretValues(upgradeOptions, candidate);
      const body = withOptions(config.request, upgradeOptions);
      // required env vars are checked (400) before anything is fetched
      const concrete = await applyEntry(body, candidate, secrets);
      if (!candidate.remote) {
        try {
          await packages.forImage(candidate.image).prepare(candidate.image, concrete.runtime_config);
        } catch (error) {
          throw new UpgradeNotPossibleError(`${candidate.image} cannot be prepared, so ${name} was left as it was: ${messageOf(error)}`);
        }
      }
      await workloads.update(name, body, { entry: candidate });
      return { ...result, status: 'upgraded', reason: `upgraded from ${result.current_image} to ${result.candidate_image}` };
    },
  };
}
