import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeToolchain, recordingRunner, touchExecutable } from './toolchain-testing.js';
import { createUvxRuntime } from './uvx.js';

describe('uvx:// runtime (fake installer runner, toolchains faked on PATH)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-uvx-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const venv = (entry: string): string => join(root, 'cache', entry);

  it('with uv on PATH makes a venv per package and version and runs the console script named like the package', async () => {
    await fakeToolchain(join(root, 'bin'), ['uv', 'python3']);
    const { run, calls } = recordingRunner(async (call) => {
      if (call.args[0] === 'pip') await touchExecutable(join(venv('mcp-server-fetch@2025.1.0'), 'bin', 'mcp-server-fetch'));
    });
    const uvx = createUvxRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'bin') }, run });
    await uvx.prepare('uvx://mcp-server-fetch@2025.1.0', { runtime_env: { PIP_INDEX_URL: 'http://mirror.example/simple' } });
    await uvx.prepare('uvx://mcp-server-fetch@2025.1.0', undefined);

    expect(calls.map((call) => [call.command, ...call.args])).toEqual([
      [join(root, 'bin', 'uv'), 'venv', '--quiet', venv('mcp-server-fetch@2025.1.0')],
      [join(root, 'bin', 'uv'), 'pip', 'install', '--quiet', '--python', join(venv('mcp-server-fetch@2025.1.0'), 'bin', 'python'), 'mcp-server-fetch==2025.1.0'],
    ]);
    expect(calls[1]?.env.PIP_INDEX_URL).toBe('http://mirror.example/simple');
    expect(await uvx.resolve('uvx://mcp-server-fetch@2025.1.0', undefined)).toEqual({
      command: join(venv('mcp-server-fetch@2025.1.0'), 'bin', 'mcp-server-fetch'),
      args: [],
      env: { VIRTUAL_ENV: venv('mcp-server-fetch@2025.1.0') },
    });
  });

  it('without uv falls back to python3 -m venv and pip, installing extra packages alongside', async () => {
    await fakeToolchain(join(root, 'bin'), ['python3']);
    const { run, calls } = recordingRunner(async (call) => {
      if (call.args.includes('pip')) await touchExecutable(join(call.command, '..', 'tool'));
    });
    const uvx = createUvxRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'bin') }, run });
    await uvx.prepare('uvx://tool', { additional_packages: ['httpx'] });
    const [create, install] = calls;
    expect(create?.args.slice(0, 2)).toEqual(['-m', 'venv']);
    expect(install?.command).toMatch(/tool@latest\+[0-9a-f]{12}\/bin\/python$/);
    expect(install?.args.slice(-2)).toEqual(['tool', 'httpx']);
  });

  it('says to install uv or python3 when neither is on PATH', async () => {
    const uvx = createUvxRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'empty') } });
    await expect(uvx.prepare('uvx://tool', undefined)).rejects.toThrow(
      'uvx:// images need uv (https://docs.astral.sh/uv/) or python3 with the venv module; install one of them',
    );
  });

  it('answers 400 when the package installs no command named like it, and keeps no broken venv', async () => {
    await fakeToolchain(join(root, 'bin'), ['uv']);
    const { run } = recordingRunner(() => Promise.resolve());
    const uvx = createUvxRuntime({ cacheDir: join(root, 'cache'), env: { PATH: join(root, 'bin') }, run });
    await expect(uvx.prepare('uvx://library-only', undefined)).rejects.toThrow('library-only installed but has no "library-only" command to run');
    await expect(access(venv('library-only@latest'))).rejects.toThrow(/ENOENT/);
  });
});
