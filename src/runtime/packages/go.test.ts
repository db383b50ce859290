import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGoRuntime, goBinaryName } from './go.js';
import { fakeToolchain, recordingRunner, touchExecutable } from './toolchain-testing.js';

describe('go:// runtime (fake installer runner, go faked on PATH)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-go-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('names the binary after the last path element, skipping a major version suffix', () => {
    expect(goBinaryName('github.com/acme/tools/cmd/mcp-server')).toBe('mcp-server');
    expect(goBinaryName('github.com/acme/server/v2')).toBe('server');
  });

  it('runs go install once with GOBIN in the cache and runs the binary directly', async () => {
    await fakeToolchain(join(root, 'bin'), ['go']);
    const { run, calls } = recordingRunner(async (call) => {
      await touchExecutable(join(call.env.GOBIN ?? '', 'server'));
    });
    const go = createGoRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'bin'), HOME: root }, run });
    await go.prepare('go://github.com/acme/server/v2@v2.1.0', undefined);
    await go.prepare('go://github.com/acme/server/v2@v2.1.0', undefined);
    const gobin = join(root, 'cache', 'github.com_acme_server_v2@v2.1.0', 'bin');
    expect(calls.map((call) => [call.command, ...call.args, call.env.GOBIN])).toEqual([[join(root, 'bin', 'go'), 'install', 'github.com/acme/server/v2@v2.1.0', gobin]]);
    expect(await go.resolve('go://github.com/acme/server/v2@v2.1.0', undefined)).toEqual({ command: join(gobin, 'server'), args: [] });
  });

  it('says to install Go when it is not on PATH', async () => {
    const go = createGoRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'empty') } });
    await expect(go.prepare('go://github.com/acme/server', undefined)).rejects.toThrow('go:// images need a Go toolchain; install Go (https://go.dev/dl/)');
  });

  it('refuses something that is not a module path', async () => {
    const go = createGoRuntime({ cacheDir: join(root, 'cache'), env: {} });
    await expect(go.prepare('go://server', undefined)).rejects.toThrow(/does not name a Go module path/);
  });
});
