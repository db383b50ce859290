import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { runCommand } from './command.js';
import { printingPackage, startFakeNpmRegistry, type FakeNpmRegistry } from './npm-registry-testing.js';
import { createNpxRuntime } from './npx.js';
import type { CommandRunner } from './types.js';

const run = promisify(execFile);

describe('npx:// runtime (real npm against a fake registry)', () => {
  let root: string;
  let env: Record<string, string>;
  let registry: FakeNpmRegistry;
  const npmCalls: string[][] = [];
  const countingRunner: CommandRunner = (command, args, options) => {
    npmCalls.push([...args]);
    return runCommand(command, args, options);
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-npx-'));
    env = { PATH: process.env.PATH ?? '', HOME: join(root, 'home'), npm_config_cache: join(root, 'npm-cache') };
    registry = await startFakeNpmRegistry(
      [
        printingPackage('@acme/echo-server', '1.2.0', { 'echo-server': 'main.js', 'echo-admin': 'admin.js' }),
        printingPackage('single-bin', '0.3.0', { 'other-name': 'cli.js' }),
      ],
      root,
      env,
    );
  });
  afterAll(async () => {
    await registry.close();
    await rm(root, { recursive: true, force: true });
  });

  const runtime = () => createNpxRuntime({ cacheDir: join(root, 'cache', 'npm'), env, cwd: root, registry: registry.url, run: countingRunner });

  it('installs a scoped package once, serializing concurrent installs, and runs its bin named like the package with node', async () => {
    const npx = runtime();
    await Promise.all([npx.prepare('npx://@acme/echo-server@1.2.0', undefined), runtime().prepare('npx://@acme/echo-server@1.2.0', undefined)]);
    await npx.prepare('npx://@acme/echo-server@1.2.0', undefined);
    expect(npmCalls.filter((args) => args.includes('@acme/echo-server@1.2.0'))).toHaveLength(1);

    const command = await npx.resolve('npx://@acme/echo-server@1.2.0', undefined);
    expect(command.command).toBe(process.execPath);
    expect(command.args[0]).toBe(join(root, 'cache', 'npm', '@acme_echo-server@1.2.0', 'node_modules', '@acme', 'echo-server', 'main.js'));
    const { stdout } = await run(command.command, command.args);
    expect(stdout.trim()).toBe('@acme/echo-server main.js');
  });

  it('caches an unpinned package under latest and picks the only bin whatever its name', async () => {
    const npx = runtime();
    await npx.prepare('npx://single-bin', undefined);
    const command = await npx.resolve('npx://single-bin', undefined);
    expect(command.args[0]).toBe(join(root, 'cache', 'npm', 'single-bin@latest', 'node_modules', 'single-bin', 'cli.js'));
  });

  it('answers 400 with npm\'s reason for a package the registry does not have, and leaves no half install', async () => {
    const error = await runtime().prepare('npx://no-such-package@1.0.0', undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/npm could not install no-such-package@1\.0\.0: .*404/);
    await expect(access(join(root, 'cache', 'npm', 'no-such-package@1.0.0'))).rejects.toThrow(/ENOENT/);
  });

  it('runs a local directory in place from its package.json bin without npm', async () => {
    const dir = join(root, 'local-server');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'local-server', bin: './server.js' }));
    const before = npmCalls.length;
    const npx = runtime();
    await npx.prepare('npx://./local-server', undefined);
    expect(await npx.resolve('npx://./local-server', undefined)).toEqual({ command: process.execPath, args: [join(dir, 'server.js')] });
    expect(await npx.resolve(`npx://${dir}`, undefined)).toEqual({ command: process.execPath, args: [join(dir, 'server.js')] });
    expect(npmCalls).toHaveLength(before);
  });

  it('refuses a package whose bins are several and none is named like it', async () => {
    const dir = join(root, 'ambiguous');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'ambiguous', bin: { a: 'a.js', b: 'b.js' } }));
    await expect(runtime().prepare(`npx://${dir}`, undefined)).rejects.toThrow(/several "bin" entries \(a, b\)/);
  });

  it('says to install Node.js when npm is not on PATH', async () => {
    const npx = createNpxRuntime({ cacheDir: join(root, 'cache2'), env: { PATH: join(root, 'empty-bin') }, cwd: root });
    await expect(npx.prepare('npx://single-bin', undefined)).rejects.toThrow('npx:// images need npm, which comes with Node.js (https://nodejs.org/)');
  });

  it('refuses a reference that is neither an npm name nor a directory', async () => {
    await expect(runtime().prepare('npx://Not A Package!', undefined)).rejects.toThrow(InvalidInputError);
  });
});
