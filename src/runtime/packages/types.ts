import type { RuntimeConfig, Transport, WorkloadRequest } from '../workloads/schemas.js';

/** How to start a prepared server process: no shell, so arguments are never interpreted. */
export interface ResolvedCommand {
  command: string;
  args: string[];
  cwd?: string;
  /** Variables the package itself needs (a venv's VIRTUAL_ENV); the workload's own env comes on top. */
  env?: Record<string, string>;
}

/** The workload an image is resolved for: a container takes its name, settings and port from it; a process ignores it. */
export interface WorkloadContext {
  name: string;
  request: WorkloadRequest;
  transport: Transport;
  /** The port an HTTP server listens on (0 for stdio). */
  targetPort: number;
  /** The catalog entry's permissions, for a workload made from one. */
  permissions: Record<string, unknown> | undefined;
}

/**
 * One way of turning an `image` into a runnable process: a protocol scheme installed with a
 * toolchain (npx://, uvx://, go://), or a container engine for OCI references. A Docker-API engine
 * is another implementation of this interface.
 */
export interface PackageRuntime {
  readonly scheme: 'npx' | 'uvx' | 'go' | 'oci';
  /**
   * Installs what `image` needs, once: later calls reuse the cache. Resolves to what the installer
   * printed ('' when nothing was installed), for the workload's log. Throws InvalidInputError when the
   * image cannot run here (a missing toolchain, an unknown package), saying what to do about it.
   */
  prepare: (image: string, runtimeConfig: RuntimeConfig | undefined) => Promise<string>;
  /** The command that runs a prepared `image` for one workload (which a container runtime needs). */
  resolve: (image: string, runtimeConfig: RuntimeConfig | undefined, workload?: WorkloadContext) => Promise<ResolvedCommand>;
  /** Removes what outlives a deleted workload's processes (its containers); nothing for a process runtime. */
  release?: (workload: string) => Promise<void>;
}

export interface PackageRuntimes {
  /** The runtime for an image: by its scheme, else the container engine. */
  forImage: (image: string) => PackageRuntime;
  /** Removes what a deleted workload that ran `image` leaves outside its processes. */
  release: (image: string, workload: string) => Promise<void>;
}

export interface RunOptions {
  cwd?: string;
  env: Record<string, string>;
}

/** Runs an installer to completion and resolves to its output (the end of it, when long); rejects with the tail of its output when it fails. */
export type CommandRunner = (command: string, args: readonly string[], options: RunOptions) => Promise<string>;
