import { readFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { InvalidInputError } from '../../core/errors.js';
import type { Transport, WorkloadRequest } from '../workloads/schemas.js';
import { PermissionProfile } from './schemas.js';

/** The container's share of the host: mounts, network, privileges. */
export interface ContainerSettings {
  binds: string[];
  /** `none` cuts the container off every network. */
  networkMode: 'none' | undefined;
  privileged: boolean;
  extraHosts: string[];
}

/** The network stays open by default; `none` and `network` differ only in name until an egress allow-list is enforced. */
export const BUILTIN_PROFILES: Readonly<Record<string, PermissionProfile>> = {
  none: {},
  network: { network: { outbound: { insecure_allow_all: true } } },
};

interface Mount {
  source: string;
  target: string;
  readOnly: boolean;
}

const NAMED_VOLUME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** `host:container[:ro|rw]`, `path` (the same path on both sides) in profiles; a source that is not a path is a named volume. */
function parseMount(text: string, field: string, readOnly: boolean, allowMode: boolean): Mount {
  const parts = text.split(':');
  const mode = allowMode && parts.length === 3 ? parts.pop() : undefined;
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw') throw new InvalidInputError(`${field} "${text}": the mode after the second colon must be ro or rw`);
  if (parts.length > 2) throw new InvalidInputError(`${field} "${text}" is not in the form host-path:container-path${allowMode ? '[:ro]' : ''}`);
  const source = parts[0] ?? '';
  const target = parts[1] ?? source;
  if (!isAbsolute(source) && !NAMED_VOLUME.test(source)) {
    throw new InvalidInputError(`${field} "${text}": ${source === '' ? 'the host path is empty' : `${source} is neither an absolute host path nor a volume name`}`);
  }
  if (!isAbsolute(target)) throw new InvalidInputError(`${field} "${text}": the path in the container must be absolute`);
  return { source, target, readOnly: mode === undefined ? readOnly : mode === 'ro' };
}

/** Checks of an image workload's body that need no files and no engine, made before anything is pulled. */
export function checkContainerRequest(request: WorkloadRequest, transport: Transport): void {
  (request.volumes ?? []).forEach((volume, index) => parseMount(volume, `volumes[${String(index)}]`, false, true));
  const profile = request.permission_profile;
  if (profile !== undefined && profile !== '' && !(profile in BUILTIN_PROFILES) && !isAbsolute(profile)) {
    throw new InvalidInputError(`permission_profile "${profile}" must be none, network, or the absolute path of a JSON profile file`);
  }
  if (request.network_isolation === true && transport !== 'stdio') {
    throw new InvalidInputError(`network_isolation runs the container without a network, so the port of a ${transport} server cannot be published; use it with stdio servers`);
  }
  if (request.network_isolation === true && request.allow_docker_gateway === true) {
    throw new InvalidInputError('allow_docker_gateway reaches the host over the network, which network_isolation removes; choose one');
  }
}

async function profileFile(path: string): Promise<PermissionProfile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(`permission_profile ${path} cannot be read as JSON: ${(error as Error).message}`);
  }
  return checkedProfile(parsed, `permission_profile ${path}`);
}

function checkedProfile(value: unknown, what: string): PermissionProfile {
  const first = Value.Errors(PermissionProfile, value).First();
  if (first !== undefined) throw new InvalidInputError(`${what}: ${first.path === '' ? 'the profile' : first.path} ${first.message}`);
  return value as PermissionProfile;
}

/** The body's profile; else the catalog entry's permissions; else none. */
async function profileOf(request: WorkloadRequest, permissions: Record<string, unknown> | undefined): Promise<PermissionProfile> {
  const named = request.permission_profile;
  if (named !== undefined && named !== '') return BUILTIN_PROFILES[named] ?? (await profileFile(named));
  if (permissions !== undefined && Object.keys(permissions).length > 0) return checkedProfile(permissions, "the catalog entry's permissions");
  return {};
}

async function checkSourceExists(mount: Mount, field: string): Promise<void> {
  if (!isAbsolute(mount.source)) return;
  try {
    await stat(mount.source);
  } catch {
    throw new InvalidInputError(`${field}: ${mount.source} does not exist on this machine`);
  }
}

/** Profile and volumes turned into the container's mounts, network mode and privileges; InvalidInputError says what cannot be honoured. */
export async function containerSettings(request: WorkloadRequest, transport: Transport, permissions: Record<string, unknown> | undefined): Promise<ContainerSettings> {
  checkContainerRequest(request, transport);
  const profile = await profileOf(request, permissions);
  const mounts = [
    ...(profile.read ?? []).map((path, index) => ({ mount: parseMount(path, `permission profile read[${String(index)}]`, true, false), field: 'permission profile read' })),
    ...(profile.write ?? []).map((path, index) => ({ mount: parseMount(path, `permission profile write[${String(index)}]`, false, false), field: 'permission profile write' })),
    ...(request.volumes ?? []).map((volume, index) => ({ mount: parseMount(volume, `volumes[${String(index)}]`, false, true), field: `volumes[${String(index)}]` })),
  ];
  for (const { mount, field } of mounts) await checkSourceExists(mount, field);
  const outbound = profile.network?.outbound;
  const reaches = [...(outbound?.allow_host ?? []), ...(outbound?.allow_port ?? []).map((port) => `port ${String(port)}`)];
  if (request.network_isolation === true && (reaches.length > 0 || outbound?.insecure_allow_all === true)) {
    // Honouring only some hosts needs an egress proxy this runtime does not have; cutting them off silently would break the server.
    const what = reaches.length > 0 ? reaches.join(', ') : 'any host';
    throw new InvalidInputError(
      `network_isolation runs the container without any network, but its permission profile lets it reach ${what}; leave network_isolation out, or set permission_profile to none`,
    );
  }
  return {
    binds: mounts.map(({ mount }) => `${mount.source}:${mount.target}:${mount.readOnly ? 'ro' : 'rw'}`),
    networkMode: request.network_isolation === true ? 'none' : undefined,
    privileged: profile.privileged === true,
    extraHosts: request.allow_docker_gateway === true ? ['host.docker.internal:host-gateway'] : [],
  };
}
