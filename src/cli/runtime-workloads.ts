import { UnavailableError } from '../core/errors.js';
import { openRuntime } from './runtime-context.js';
import { runRequest, workloadTable, type RunOptions } from './runtime-format.js';

export async function run(server: string, args: string[], options: RunOptions): Promise<void> {
  const { workloads } = openRuntime();
  const { name, port } = await workloads.create(runRequest(server, args, options));
  // a workload that fails to start is kept, with the reason as its status, so it can be fixed and restarted
  const { status, status_context } = await workloads.status(name);
  if (status === 'error') throw new UnavailableError(`${name} did not start: ${status_context} (toolyard logs ${name} --proxy shows more)`);
  const summary = (await workloads.list({ all: true })).find((workload) => workload.name === name);
  console.log(`${name} ${summary?.url ?? `http://127.0.0.1:${String(port)}`}`);
}

export async function list(options: { all: boolean; group?: string; format: 'table' | 'json' }): Promise<void> {
  const { workloads } = openRuntime();
  const found = await workloads.list({ all: options.all, ...(options.group !== undefined && { group: options.group }) });
  if (options.format === 'json') console.log(JSON.stringify(found, null, 2));
  else if (found.length === 0) console.log(options.all ? 'no workloads' : 'no running workloads (toolyard list --all shows the others)');
  else console.log(workloadTable(found));
}

/** Waits until the work is done, unlike the API, so the shell prompt returns to a settled state. */
export async function act(verb: 'stop' | 'restart' | 'rm', names: string[]): Promise<void> {
  const { workloads } = openRuntime();
  const accepted = verb === 'stop' ? await workloads.stop(names) : verb === 'restart' ? await workloads.restart(names) : await workloads.remove(names);
  await accepted.done;
  const past = { stop: 'stopped', restart: 'restarted', rm: 'removed' }[verb];
  for (const name of names) console.log(`${past} ${name}`);
}

export async function exportConfig(name: string): Promise<void> {
  const { workloads } = openRuntime();
  console.log(JSON.stringify(await workloads.exportConfig(name), null, 2));
}
