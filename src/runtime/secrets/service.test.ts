import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runtimePaths, type RuntimePaths } from '../paths.js';
import type { ProcessRunner } from './process.js';
import { createSecretsService, type SecretsServiceOptions } from './service.js';

const LOW_COST = { N: 2 ** 10, r: 8, p: 1 };

describe('the secrets service', () => {
  let paths: RuntimePaths;
  beforeEach(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolyard-secrets-service-'));
    paths = runtimePaths({}, dir);
  });
  /** Linux with no session bus: no keyring, as on a headless machine. */
  const service = (env: Record<string, string> = {}, more: Partial<SecretsServiceOptions> = {}) =>
    createSecretsService({ paths, env, platform: 'linux', findExecutable: () => Promise.resolve(undefined), scrypt: LOW_COST, ...more });

  it('is the encrypted provider until set up otherwise, and lists nothing before the first secret', async () => {
    const secrets = service();
    expect(await secrets.describe()).toEqual({ name: 'default', provider_type: 'encrypted', capabilities: { read: true, write: true, list: true, delete: true } });
    expect(await secrets.listKeys()).toEqual([]);
  });

  it('sets up the encrypted provider on a headless machine with a key file and saves the choice', async () => {
    const result = await service().setup('encrypted');
    expect(result.provider_type).toBe('encrypted');
    expect(result.message).toContain(join(paths.config, 'secrets.key'));
    expect(JSON.parse(await readFile(join(paths.config, 'secrets.json'), 'utf8'))).toEqual({ provider_type: 'encrypted' });
    const second = await service().setup('encrypted', 'my chosen password');
    expect(second.message).not.toContain('my chosen password');
    expect((await readFile(join(paths.config, 'secrets.key'), 'utf8')).trim()).toBe('my chosen password');
  });

  it('checks a password before using it', async () => {
    await expect(service().setup('encrypted', 'short')).rejects.toThrow('at least 8 characters');
    await expect(service().setup('encrypted', ' padded password ')).rejects.toThrow('whitespace');
    await expect(service().setup('environment', 'a long password')).rejects.toThrow('only the encrypted provider takes a password');
  });

  it('resolves workload references through the store first, then TOOLYARD_SECRET_<NAME>', async () => {
    const env = { TOOLYARD_SECRET_GITHUB: 'from-env', TOOLYARD_SECRET_ONLY_ENV: 'env-only' };
    await service(env).create('github', 'from-store');
    const reader = service(env).reader();
    expect(await reader.get('github')).toBe('from-store');
    expect(await reader.get('only-env')).toBe('env-only');
    expect(await reader.get('nowhere')).toBeUndefined();
  });

  it('never resolves through a store it cannot open', async () => {
    await service({ TOOLYARD_SECRETS_PASSWORD: 'the first password' }).create('github', 'from-store');
    const reader = service({ TOOLYARD_SECRETS_PASSWORD: 'another password', TOOLYARD_SECRET_GITHUB: 'from-env' }).reader();
    await expect(reader.get('github')).rejects.toMatchObject({ status: 403 });
  });

  it('uses the environment provider once set up, read-only', async () => {
    const secrets = service({ TOOLYARD_SECRET_API_KEY: 'k' });
    await secrets.setup('environment');
    expect(await secrets.describe()).toMatchObject({ provider_type: 'environment', capabilities: { write: false, list: false } });
    expect(await secrets.reader().get('api-key')).toBe('k');
    for (const operation of [() => secrets.listKeys(), () => secrets.create('a', 'b'), () => secrets.update('a', 'b'), () => secrets.delete('a')]) {
      await expect(operation()).rejects.toMatchObject({ status: 405 });
    }
  });

  it('sets up 1password only with OP_SERVICE_ACCOUNT_TOKEN and op on PATH', async () => {
    await expect(service().setup('1password')).rejects.toThrow('OP_SERVICE_ACCOUNT_TOKEN');
    await expect(service({ OP_SERVICE_ACCOUNT_TOKEN: 'ops_x' }).setup('1password')).rejects.toThrow('op) on PATH');

    const run: ProcessRunner = (_file, args) =>
      Promise.resolve(args[0] === 'read' ? { code: 0, stdout: 'v', stderr: '' } : { code: 0, stdout: '[{"title":"GitHub","vault":{"name":"Dev"}}]', stderr: '' });
    const withOp = { findExecutable: (name: string) => Promise.resolve(name === 'op' ? '/opt/op' : undefined), run };
    const secrets = service({ OP_SERVICE_ACCOUNT_TOKEN: 'ops_x' }, withOp);
    expect((await secrets.setup('1password')).provider_type).toBe('1password');
    expect(await secrets.listKeys()).toEqual([{ key: 'op://Dev/GitHub' }]);
    expect(await secrets.reader().get('op://Dev/GitHub/token')).toBe('v');
    await expect(secrets.create('a', 'b')).rejects.toMatchObject({ status: 405 });
    // the token went away after setup: the configured provider is unavailable, not silently another one
    await expect(service({}, withOp).listKeys()).rejects.toMatchObject({ status: 503 });
  });

  it('refuses a settings file it does not understand', async () => {
    await service().setup('environment');
    await writeFile(join(paths.config, 'secrets.json'), '{"provider_type": "vault"}');
    await expect(service().describe()).rejects.toThrow('provider_type: must be one of encrypted, environment, 1password');
  });
});
