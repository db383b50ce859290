import { spawn, type ChildProcess } from 'node:child_process';
import { SOURCES_NODE_OPTIONS } from '../../src/runtime/workloads/supervisor-testing.js';
export { freePort } from '../../src/core/net/free-port.js';

export const CLI = new URL('../../src/cli/main.ts', import.meta.url).pathname;

/** Runs the `toolyard` command from source, as `npm start` would after a build; the processes it starts run from source too. */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NODE_OPTIONS: SOURCES_NODE_OPTIONS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { output: () => output });
}

export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawnCli(args, env);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output: child.output() };
}


export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const start = Date.now();
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // not there yet
    }
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
