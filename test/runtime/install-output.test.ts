import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../../src/runtime/packages/npm-registry-testing.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { createRuntimeServices } from '../../src/runtime/services.js';
import { runCli } from '../helpers/cli.js';
import { runtimeEnv, testRuntime } from './fixtures.js';

/** A stdio "server" that only stays up, which is all a supervisor needs to call it running. */
const idle = (name: string) => ({ name, version: '1.0.0', bin: 'index.js', files: { 'index.js': '#!/usr/bin/env node\nsetInterval(() => undefined, 60_000);\n' } });

describe("npm's output goes to the workload's proxy log, with the update notifier off (real npm against a fake registry)", () => {
  let root: string;
  let registry: FakeNpmRegistry;
  let npmEnv: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-install-output-'));
    const userconfig = join(root, 'npmrc');
    await writeFile(userconfig, '');
    // a newer npm in the registry, so that an update check would have something to announce
    const packEnv = { PATH: process.env.PATH ?? '', HOME: join(root, 'home'), npm_config_cache: join(root, 'pack-cache') };
    registry = await startFakeNpmRegistry([idle('quiet-server'), idle('cli-server'), { ...idle('npm'), version: '99.0.0' }], root, packEnv);
    npmEnv = { npm_config_registry: registry.url, npm_config_cache: join(root, 'npm-cache'), npm_config_userconfig: userconfig };
  });
  afterAll(async () => {
    await registry.close();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the notifier off even when the workload asks npm for it, and logs what npm printed', async () => {
    const runtime = await testRuntime({ supervisor: 'fake', env: npmEnv });
    try {
      const created = await runtime.app.http.inject({
        method: 'POST',
        url: '/api/v1beta/workloads',
        payload: { name: 'quiet', image: 'npx://quiet-server@1.0.0', runtime_config: { runtime_env: { npm_config_update_notifier: 'true' } } },
      });
      expect(created.statusCode).toBe(201);
      // the update check asks the registry for npm itself
      expect(registry.requests).not.toContain('npm');
      const log = (await runtime.app.http.inject({ url: '/api/v1beta/workloads/quiet/proxy-logs' })).body;
      expect(log).toMatch(/^\S+ install npx:\/\/quiet-server@1\.0\.0: added 1 package/m);
      expect(log).not.toMatch(/version of npm available/);
    } finally {
      await runtime.close();
    }
  });

  it('toolyard run prints only the URL; what npm printed is in toolyard logs --proxy', async () => {
    const { dir, env } = await runtimeEnv(npmEnv);
    try {
      const run = await runCli(['run', 'npx://cli-server@1.0.0', '--name', 'from-cli'], env);
      expect(run).toEqual({ code: 0, output: expect.stringMatching(/^from-cli http:\/\/127\.0\.0\.1:\d+\/mcp\n$/) as unknown });
      const logs = await runCli(['logs', 'from-cli', '--proxy'], env);
      expect(logs.output).toMatch(/ install npx:\/\/cli-server@1\.0\.0: added 1 package/);
    } finally {
      const { workloads } = createRuntimeServices({ paths: runtimePaths(env), env, logger: silentLogger, cwd: dir });
      await (await workloads.remove(['from-cli'])).done;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
