import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DomainError, InvalidInputError } from '../../core/errors.js';
import { engineAuthHeader, serverAddress, type RegistryCredentials } from '../credentials/store.js';
import type { PackageRuntime, ResolvedCommand, WorkloadContext } from '../packages/types.js';
import { engineCandidates, START_AN_ENGINE } from './endpoint.js';
import { createEngineClient, type ContainerCreateBody, type EngineClient } from './engine.js';
import type { ContainerRunSpec } from './schemas.js';
import { containerSettings } from './settings.js';

export const LABEL_WORKLOAD = 'dev.toolyard.workload';
export const LABEL_RUNTIME = 'dev.toolyard.runtime';
export const LABEL_IMAGE = 'dev.toolyard.image';

export interface ContainerRuntimeOptions {
  /** DOCKER_HOST and XDG_RUNTIME_DIR say where the engine listens. */
  env: Readonly<Record<string, string | undefined>>;
  /** Marks this runtime's containers, so runtimes with different state never touch each other's. */
  runtimeId: string;
  /** Variables the runner process needs to start (a loader when the runtime runs from sources). */
  runnerEnv?: Record<string, string>;
  /** The runner's command; `node runner-main.js` beside this module by default. */
  runnerCommand?: { command: string; args: string[] };
  connect?: (socketPath: string) => EngineClient;
  /** The logins of `docker login` / `podman login`, handed to the engine for the image's registry. */
  credentials?: RegistryCredentials;
}

/**
 * Podman names images built or imported on the machine `localhost/name:tag`; pulling one would ask a
 * registry at https://localhost, which Podman retries for seconds before failing.
 */
const LOCAL_ONLY = /^localhost\//;

/**
 * The registry an image reference names and its repository, as the engine reads it: the first
 * segment is a registry when it has a dot or a port or is `localhost`, else the image is on Docker Hub.
 */
export function imageRegistry(image: string): { host: string; repository: string } {
  const name = image.split('@')[0] ?? '';
  const path = name.lastIndexOf(':') > name.lastIndexOf('/') ? name.slice(0, name.lastIndexOf(':')) : name;
  const [first = '', ...rest] = path.split('/');
  if (rest.length > 0 && (first.includes('.') || first.includes(':') || first === 'localhost')) return { host: first, repository: rest.join('/') };
  return { host: 'docker.io', repository: rest.length > 0 ? path : `library/${path}` };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `node runner-main.js`, in the form this module runs in (compiled in dist/, or sources under a loader). */
export function runnerCommand(moduleUrl: string = import.meta.url): { command: string; args: string[] } {
  const here = fileURLToPath(moduleUrl);
  return { command: process.execPath, args: [join(dirname(here), `runner-main${extname(here)}`)] };
}

/** An engine's refusal of a reference the user gave is a fault of the request (400), not of the engine. */
function asInputError(error: unknown): unknown {
  return error instanceof DomainError && error.status >= 400 && error.status < 500 ? new InvalidInputError(error.message) : error;
}

/**
 * OCI images run as containers of a Docker Engine API (Docker, or Podman's compatible service):
 * `prepare` pulls the image, `resolve` gives the runner command that creates, attaches, starts,
 * stops and removes the workload's container. No engine answering is a 400 saying which to start.
 */
export function createContainerRuntime(options: ContainerRuntimeOptions): PackageRuntime {
  const connect = options.connect ?? ((socketPath: string) => createEngineClient({ socketPath }));
  const runner = options.runnerCommand ?? runnerCommand();

  const locate = async (): Promise<EngineClient> => {
    const tried: string[] = [];
    for (const candidate of engineCandidates(options.env)) {
      const engine = connect(candidate.socketPath);
      try {
        await engine.ping();
        return engine;
      } catch (error) {
        tried.push(`${candidate.source} at ${candidate.socketPath}: ${messageOf(error).replace(/: start Docker.*$/, '')}`);
      }
    }
    throw new InvalidInputError(`OCI images run in a container engine, and none answers (${tried.join('; ')}): ${START_AN_ENGINE}`);
  };

  /** The `X-Registry-Auth` of the image's registry, when a login for it is stored. */
  const registryAuth = async (image: string): Promise<string | undefined> => {
    const { host, repository } = imageRegistry(image);
    const credential = await options.credentials?.find(host, repository);
    return credential === undefined ? undefined : engineAuthHeader(credential, serverAddress(host));
  };

  const prepare = async (image: string): Promise<string> => {
    const engine = await locate();
    const lines: string[] = [];
    try {
      if (LOCAL_ONLY.test(image) && (await engine.inspectImage(image)) !== undefined) lines.push(`${image} was built or imported on the engine; nothing to pull`);
      else await engine.pull(image, (line) => lines.push(line), await registryAuth(image));
    } catch (error) {
      // an image built or imported on this machine has no registry to come from
      if ((await engine.inspectImage(image)) === undefined) throw asInputError(error);
      lines.push(`pull failed (${messageOf(error)}); using the image already on the engine`);
    }
    const details = await engine.inspectImage(image);
    if (details === undefined) throw new InvalidInputError(`${image} was pulled but the engine does not list it; check the reference`);
    lines.push(`image ${details.Id}`);
    return lines.join('\n');
  };

  const resolve = async (image: string, workload: WorkloadContext | undefined): Promise<ResolvedCommand> => {
    if (workload === undefined) throw new Error('a container is resolved for a workload');
    const settings = await containerSettings(workload.request, workload.transport, workload.permissions);
    const engine = await locate();
    const details = await engine.inspectImage(image);
    if (details === undefined) throw new InvalidInputError(`${image} is not on the container engine; create the workload again to pull it`);
    const spec: ContainerRunSpec = {
      socketPath: engine.socketPath,
      name: `toolyard-${workload.name}-${options.runtimeId}`,
      envNames: [...Object.keys(workload.request.env_vars ?? {}), ...(workload.request.secrets ?? []).map((ref) => ref.target)],
      labels: { [LABEL_WORKLOAD]: workload.name, [LABEL_RUNTIME]: options.runtimeId },
      body: createBody(details.Id, image, workload, settings),
    };
    return { command: runner.command, args: [...runner.args, JSON.stringify(spec)], env: { ...options.runnerEnv } };
  };

  return {
    scheme: 'oci',
    prepare,
    resolve: (image, _runtimeConfig, workload) => resolve(image, workload),
    release: async (workload) => {
      let engine: EngineClient;
      try {
        engine = await locate();
      } catch {
        // no engine, no containers left to remove
        return;
      }
      for (const container of await engine.list({ [LABEL_WORKLOAD]: workload, [LABEL_RUNTIME]: options.runtimeId })) await engine.remove(container.Id);
    },
  };
}

function createBody(imageId: string, image: string, workload: WorkloadContext, settings: Awaited<ReturnType<typeof containerSettings>>): ContainerCreateBody {
  const stdio = workload.transport === 'stdio';
  const port = `${String(workload.targetPort)}/tcp`;
  const confined = !settings.privileged;
  return {
    // the image as pulled now: a restart runs the same one, an upgrade pulls and recreates
    Image: imageId,
    // inside the container the server must listen on every interface for the published port to reach it
    Env: stdio ? [] : [`PORT=${String(workload.targetPort)}`, `MCP_PORT=${String(workload.targetPort)}`, 'MCP_HOST=0.0.0.0'],
    Labels: { [LABEL_IMAGE]: image },
    AttachStdin: stdio,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: stdio,
    StdinOnce: stdio,
    Tty: false,
    ...(!stdio && { ExposedPorts: { [port]: {} } }),
    HostConfig: {
      Binds: settings.binds,
      ...(settings.networkMode !== undefined && { NetworkMode: settings.networkMode }),
      ...(!stdio && { PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: String(workload.targetPort) }] } }),
      Privileged: settings.privileged,
      CapDrop: confined ? ['ALL'] : [],
      SecurityOpt: confined ? ['no-new-privileges'] : [],
      ...(settings.extraHosts.length > 0 && { ExtraHosts: settings.extraHosts }),
    },
  };
}
