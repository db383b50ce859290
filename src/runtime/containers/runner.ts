import type { Readable, Writable } from 'node:stream';
import type { ContainerCreateBody, EngineClient } from './engine.js';
import type { ContainerRunSpec } from './schemas.js';

export interface RunContainerOptions {
  spec: ContainerRunSpec;
  /** Replaces the image's default command when not empty (the workload's cmd_arguments). */
  cmd: readonly string[];
  /** Where the values of `spec.envNames` come from. */
  env: Readonly<Record<string, string | undefined>>;
  engine: EngineClient;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Aborting it stops and removes the container. */
  stop: AbortSignal;
  /** How long the engine lets the server shut down before killing it; short, as whoever stops the runner waits for it. */
  stopGraceSeconds?: number;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Removes containers left by an earlier runner of the same workload that was killed before it could clean up. */
async function removeLeftovers(engine: EngineClient, labels: Record<string, string>): Promise<void> {
  for (const container of await engine.list(labels)) await engine.remove(container.Id);
}

function createBody(options: RunContainerOptions): ContainerCreateBody {
  const body = options.spec.body as ContainerCreateBody;
  const env: Record<string, string> = {};
  for (const name of options.spec.envNames) {
    const value = options.env[name];
    if (value !== undefined) env[name] = value;
  }
  // the runtime's own variables (the port the proxy points at) win over the workload's
  for (const entry of body.Env) {
    const at = entry.indexOf('=');
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return {
    ...body,
    Env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    Labels: { ...body.Labels, ...options.spec.labels },
    ...(options.cmd.length > 0 && { Cmd: [...options.cmd] }),
  };
}

/**
 * Runs one container in the foreground, like `docker run -i --rm`: its stdio is this process's
 * stdio, so the supervisor and the proxy treat it as any server process; the container goes when
 * it exits or when `stop` aborts. Resolves with the server's exit code.
 */
export async function runContainer(options: RunContainerOptions): Promise<number> {
  const { engine, spec, stop } = options;
  const body = createBody(options);
  await removeLeftovers(engine, spec.labels);
  const id = await engine.createContainer(spec.name, body);
  let outputEnded: () => void = () => undefined;
  const drained = new Promise<void>((resolve) => (outputEnded = resolve));
  try {
    if (stop.aborted) return 0;
    // attached before it starts, so not a byte of its first output is lost
    const attached = await engine.attach(
      id,
      (kind, payload) => (kind === 'stderr' ? options.stderr : options.stdout).write(payload),
      () => outputEnded(),
    );
    const exited = (await engine.wait(id)).exited.catch((error: unknown) => {
      options.stderr.write(`lost track of container ${spec.name}: ${messageOf(error)}\n`);
      return 125;
    });
    await engine.start(id);
    // what the client sent meanwhile waited in this process's stdin, and goes to the server now it runs
    if (body.OpenStdin) {
      options.stdin.on('data', (chunk: Buffer) => attached.stdin.write(chunk));
      options.stdin.once('end', () => attached.stdin.end());
    }
    const stopped = new Promise<number>((resolve) => {
      const onStop = (): void => {
        void engine
          .stop(id, options.stopGraceSeconds ?? 1)
          .catch((error: unknown) => options.stderr.write(`could not stop container ${spec.name}: ${messageOf(error)}\n`))
          .then(() => resolve(0));
      };
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    });
    const code = await Promise.race([exited, stopped]);
    // the last output may still be on its way when the engine reports the exit
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    attached.close();
    return code;
  } finally {
    await engine.remove(id).catch((error: unknown) => options.stderr.write(`could not remove container ${spec.name}: ${messageOf(error)}\n`));
  }
}
