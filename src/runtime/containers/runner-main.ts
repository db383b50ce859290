/**
 * The container runner's entry file (`node runner-main.js <spec JSON> [command...]`): the process the
 * supervisor runs as an image workload's server.
 */
import { Value } from '@sinclair/typebox/value';
import { createEngineClient } from './engine.js';
import { runContainer } from './runner.js';
import { ContainerRunSpec } from './schemas.js';

const [specText, ...cmd] = process.argv.slice(2);
let spec: unknown;
try {
  spec = JSON.parse(specText ?? '');
} catch {
  spec = undefined;
}
if (!Value.Check(ContainerRunSpec, spec)) {
  process.stderr.write('usage: runner-main <container run spec JSON> [command...]\n');
  process.exit(2);
}

const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());

try {
  const code = await runContainer({
    spec,
    cmd,
    env: process.env,
    engine: createEngineClient({ socketPath: spec.socketPath }),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stop: stop.signal,
  });
  process.exit(code);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(125);
}
