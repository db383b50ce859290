/**
 * `npm run bench:skills` (tsx bench/skills.ts): installing and syncing skills with the local runtime's
 * real HTTP app on temporary HOME and XDG directories, each against a floor in the same run.
 *
 * 1. Install of a generated 200-file skill (3 KB a file) into a project, on a fresh runtime each run:
 *    - from the local OCI registry (Debian's docker-registry on loopback; built and pushed once,
 *      installed by reference), against fetching its manifest and layer directly;
 *    - from a local git repository (`git daemon` on loopback), against `git clone --depth 1` of it;
 *    both beside `cp -r` of the same 200 files.
 * 2. Sync of a project whose lock file has 50 entries (three-file skills from the registry, or from git
 *    when the registry is missing):
 *    - nothing changed: every entry current; target ≤ 300 ms, and no request may reach the source;
 *    - everything changed: each entry's folder removed, so all 50 reinstall at their pins;
 *      against fetching the 50 manifests and layers directly.
 * Options: --runs N installs per way (5), --syncs N nothing-changed syncs (10).
 * Writes bench/results/skills.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { commitTree, startGitDaemon } from '../src/runtime/artifacts/git-testing.js';
import { testRuntime, type TestRuntime } from '../test/runtime/fixtures.js';
import { log } from './harness.js';
import { fetchArtifact, LARGE_FILES, startCountedRegistry, writeLargeSkill, writeSmallSkill, type CountedRegistry } from './skills-sources.js';

const RESULTS = new URL('./results/skills.json', import.meta.url);
const API = '/api/v1beta';
const LOCK_ENTRIES = 50;
const TARGETS = { syncUnchangedMs: 300 };

const round = (value: number) => Math.round(value * 10) / 10;
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return round(sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2);
}
const figures = (values: number[]) => ({ medianMs: median(values), minMs: round(Math.min(...values)), maxMs: round(Math.max(...values)), runs: values.map(round) });

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function call(runtime: TestRuntime, method: 'GET' | 'POST', url: string, payload?: object): Promise<unknown> {
  const response = await runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${String(response.statusCode)}: ${response.body}`);
  return response.statusCode === 204 ? undefined : response.json<unknown>();
}

/** One install on a fresh runtime and project, timed from request to answer. */
async function installOnce(work: string, reference: string, run: number): Promise<number> {
  const runtime = await testRuntime({ supervisor: 'fake' });
  const project = join(work, `install-${String(run)}-${String(performance.now())}`);
  await mkdir(project);
  try {
    return await timed(() => call(runtime, 'POST', '/skills', { name: reference, scope: 'project', project_root: project, clients: ['claude-code'] }));
  } finally {
    await runtime.close();
    await rm(project, { recursive: true, force: true });
  }
}

/** The install and its floor, taking turns run by run. */
async function measureInstall(runs: number, install: (run: number) => Promise<number>, floor: (run: number) => Promise<unknown>) {
  const ways = { install: [] as number[], floor: [] as number[] };
  await install(-1);
  for (let run = 0; run < runs; run++) {
    ways.install.push(await install(run));
    ways.floor.push(await timed(() => floor(run)));
  }
  return { install: figures(ways.install), floor: figures(ways.floor) };
}

async function measureSync(options: { work: string; publisher: TestRuntime; registry: CountedRegistry | undefined; gitBase: string; syncs: number; runs: number }) {
  const { work, publisher, registry } = options;
  const names = Array.from({ length: LOCK_ENTRIES }, (_, index) => `lock-skill-${String(index).padStart(2, '0')}`);
  const source = join(work, 'lock-sources');
  for (const name of names) await writeSmallSkill(source, name);
  let references: string[];
  let daemon: Awaited<ReturnType<typeof startGitDaemon>> | undefined;
  if (registry !== undefined) {
    references = names.map((name) => `${registry.host}/skills/${name}:1.0.0`);
    for (const [index, name] of names.entries()) {
      await call(publisher, 'POST', '/skills/build', { path: join(source, name), tag: references[index] });
      await call(publisher, 'POST', '/skills/push', { reference: references[index], no_sign: true });
    }
  } else {
    execFileSync('cp', ['-r', source, join(options.gitBase, 'lock-skills')]);
    await commitTree(join(options.gitBase, 'lock-skills'), {});
    daemon = await startGitDaemon(options.gitBase);
    references = names.map((name) => `git://${daemon?.host ?? ''}/lock-skills#${name}`);
  }
  const runtime = await testRuntime({ supervisor: 'fake' });
  const project = join(work, 'lock-project');
  await mkdir(project);
  try {
    for (const reference of references) await call(runtime, 'POST', '/skills', { name: reference, scope: 'project', project_root: project, clients: ['claude-code'] });
    const sync = () => call(runtime, 'POST', '/skills/sync', { project_root: project }) as Promise<{ already_current: string[]; installed: string[]; failed: unknown[] }>;

    // with git there is no proxy to count through: the daemon is stopped, so any contact would fail an entry
    await daemon?.stop();
    const before = registry?.requests() ?? 0;
    const unchanged: number[] = [];
    for (let run = 0; run < options.syncs; run++) {
      let result: Awaited<ReturnType<typeof sync>> | undefined;
      unchanged.push(await timed(async () => (result = await sync())));
      if (result?.already_current.length !== LOCK_ENTRIES) throw new Error(`an unchanged sync found ${String(result?.already_current.length)} of ${String(LOCK_ENTRIES)} entries current: ${JSON.stringify(result)}`);
    }
    const requestsDuringUnchanged = (registry?.requests() ?? 0) - before;
    if (requestsDuringUnchanged !== 0) throw new Error(`unchanged syncs sent ${String(requestsDuringUnchanged)} requests to the registry`);
    if (daemon !== undefined) daemon = await startGitDaemon(options.gitBase, daemon.port);

    const changed: number[] = [];
    const floor: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      for (const name of names) await rm(join(project, '.claude/skills', name), { recursive: true, force: true });
      let result: Awaited<ReturnType<typeof sync>> | undefined;
      changed.push(await timed(async () => (result = await sync())));
      if (result?.installed.length !== LOCK_ENTRIES) throw new Error(`a sync after removing every folder reinstalled ${String(result?.installed.length)} entries: ${JSON.stringify(result)}`);
      if (registry !== undefined) floor.push(await timed(async () => Promise.all(names.map((name) => fetchArtifact(registry.host, `skills/${name}`, '1.0.0')))));
    }
    return {
      source: registry !== undefined ? 'oci-registry' : 'git',
      entries: LOCK_ENTRIES,
      unchanged: { ...figures(unchanged), requestsToSource: requestsDuringUnchanged },
      everythingChanged: { ...figures(changed), ...(floor.length > 0 && { floor: figures(floor) }) },
    };
  } finally {
    await daemon?.stop();
    await runtime.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, syncs: { type: 'string', default: '10' } } });
  const runs = Number(values.runs);
  const work = await mkdtemp(join(tmpdir(), 'toolyard-bench-skills-'));
  const publisher = await testRuntime({ supervisor: 'fake' });
  const stops: (() => Promise<unknown>)[] = [() => publisher.close(), () => rm(work, { recursive: true, force: true })];
  try {
    const large = await writeLargeSkill(join(work, 'src'), 'large-skill');
    const copy = (run: number) => timed(() => Promise.resolve(execFileSync('cp', ['-r', large, join(work, `copy-${String(run)}`)])));
    const copies = [] as number[];
    for (let run = 0; run < runs; run++) copies.push(await copy(run));
    const started = await startCountedRegistry();
    const registry = 'registry' in started ? started.registry : undefined;
    if (registry !== undefined) stops.unshift(() => registry.stop());
    if ('reason' in started) log(`no OCI registry: ${started.reason}; measuring git only`);

    let oci: Awaited<ReturnType<typeof measureInstall>> | undefined;
    if (registry !== undefined) {
      const reference = `${registry.host}/skills/large-skill:1.0.0`;
      await call(publisher, 'POST', '/skills/build', { path: large, tag: reference });
      await call(publisher, 'POST', '/skills/push', { reference, no_sign: true });
      log('installing the 200-file skill from the OCI registry');
      oci = await measureInstall(runs, (run) => installOnce(work, reference, run), () => fetchArtifact(registry.host, 'skills/large-skill', '1.0.0'));
    }

    const gitBase = join(work, 'repos');
    await mkdir(gitBase);
    execFileSync('cp', ['-r', join(work, 'src'), join(gitBase, 'skills')]);
    await commitTree(join(gitBase, 'skills'), {});
    const daemon = await startGitDaemon(gitBase);
    stops.unshift(() => daemon.stop());
    log('installing the 200-file skill from git');
    const git = await measureInstall(
      runs,
      (run) => installOnce(work, `git://${daemon.host}/skills#large-skill`, run),
      (run) => Promise.resolve(execFileSync('git', ['clone', '--quiet', '--depth', '1', `git://${daemon.host}/skills`, join(work, `clone-${String(run)}`)])),
    );

    log(`syncing a ${String(LOCK_ENTRIES)}-entry lock file`);
    const sync = await measureSync({ work, publisher, registry, gitBase, syncs: Number(values.syncs), runs });
    const met = sync.unchanged.medianMs <= TARGETS.syncUnchangedMs && sync.unchanged.requestsToSource === 0;
    const result = {
      benchmark: 'skills',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg().map(round), node: process.version },
      method:
        `the runtime's HTTP app in process (inject), temp HOME and XDG directories; install: a ${String(LARGE_FILES)}-file skill into a project on a fresh runtime, ` +
        `median of ${String(runs)} after one warm-up, in turns with its floor; sync: ${String(LOCK_ENTRIES)} three-file skills, ${values.syncs} unchanged syncs, ${String(runs)} after removing every folder`,
      install: { files: LARGE_FILES, copyFloor: figures(copies), ...(oci !== undefined ? { ociRegistry: oci } : { ociRegistry: null, ociRegistryMissing: 'reason' in started ? started.reason : '' }), git },
      sync,
      targets: { syncUnchangedMs: { target: `<= ${String(TARGETS.syncUnchangedMs)}, no request to the source`, value: sync.unchanged.medianMs, met } },
    };
    const lines = [
      '',
      `install of a ${String(LARGE_FILES)}-file skill (median ms; cp -r of the same files ${String(result.install.copyFloor.medianMs)} ms):`,
      ...(oci !== undefined ? [`  OCI registry  ${String(oci.install.medianMs).padStart(7)}   floor (fetch manifest + layer) ${String(oci.floor.medianMs)}`] : ['  OCI registry  not measured: docker-registry missing']),
      `  git           ${String(git.install.medianMs).padStart(7)}   floor (git clone --depth 1) ${String(git.floor.medianMs)}`,
      `sync of a ${String(LOCK_ENTRIES)}-entry lock file from ${sync.source} (median ms):`,
      `  nothing changed    ${String(sync.unchanged.medianMs).padStart(7)}   requests to the source: ${String(sync.unchanged.requestsToSource)} (target <= ${String(TARGETS.syncUnchangedMs)} ms: ${met ? 'met' : 'NOT met'})`,
      `  everything changed ${String(sync.everythingChanged.medianMs).padStart(7)}${sync.everythingChanged.floor !== undefined ? `   floor (fetch 50 manifests + layers) ${String(sync.everythingChanged.floor.medianMs)}` : ''}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${RESULTS.pathname}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

await main();
