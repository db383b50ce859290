import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { registryEntryOf } from './registry-source.js';
import { FAKE_REGISTRY_URL, containerEntry, remoteEntry } from './registry-testing.js';
import { createUpgradeHarness, image, publishWeatherServer, type PublishedPackage, type UpgradeHarness } from './upgrades-testing.js';

const declared = (name: string, fields: { required?: boolean; secret?: boolean; default?: string } = {}) => ({
  name,
  description: '',
  required: fields.required ?? false,
  secret: fields.secret ?? false,
  default: fields.default ?? '',
});

describe('workloads created from the catalog (fake catalog, real npm against a fake registry)', () => {
  let published: PublishedPackage;
  let harness: UpgradeHarness;

  beforeAll(async () => {
    published = await publishWeatherServer();
  });
  afterAll(() => published.close());
  beforeEach(async () => {
    harness = await createUpgradeHarness(published, createEnvironmentSecretReader({ TOOLYARD_SECRET_API_TOKEN: 'sk-catalog-secret' }));
    harness.catalog.servers.set(
      'weather',
      containerEntry('weather', image('1.0.0'), {
        args: ['--units', 'metric'],
        env_vars: [declared('API_TOKEN', { required: true, secret: true }), declared('REGION', { default: 'eu' }), declared('ACCOUNT', { required: true })],
      }),
    );
  });
  afterEach(() => harness.close());

  it('creates from {registry, server}: the entry defaults apply, a stored secret is referenced, and the source is recorded', async () => {
    const created = await harness.workloads.create({ registry: 'default', server: 'weather', env_vars: { ACCOUNT: 'acme' }, labels: { team: 'a' } });
    expect(created.name).toBe('weather');
    const config = await harness.workloads.exportConfig('weather');
    expect(config).toMatchObject({
      image: image('1.0.0'),
      registry_url: FAKE_REGISTRY_URL,
      registry_server_name: 'weather',
      transport: 'stdio',
      cmd_args: ['--units', 'metric'],
      env_vars: { ACCOUNT: 'acme', REGION: 'eu' },
      secrets: [{ name: 'api_token', target: 'API_TOKEN' }],
    });
    expect(config.command?.args.slice(1)).toEqual(['--units', 'metric']);
    expect(registryEntryOf(config)?.version).toBe('1.0.0');
    // details are the body as given, with the image the entry resolved to beside the reference
    expect(await harness.workloads.get('weather')).toMatchObject({ registry: 'default', server: 'weather', image: image('1.0.0'), env_vars: { ACCOUNT: 'acme' } });
    const saved = await readFile(join(harness.paths.state, 'runconfigs', 'weather.json'), 'utf8');
    expect(saved).not.toContain('sk-catalog-secret');
    expect(harness.supervisor.starts).toEqual(['weather']);
  });

  it('refuses a missing required env var with a 400 naming it, before anything is installed', async () => {
    const before = published.requests().length;
    const error = await harness.workloads.create({ registry: 'default', server: 'weather' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe('server weather requires the env vars ACCOUNT (in env_vars, or as secrets {name, target})');
    expect(published.requests().slice(before)).toEqual([]);
    expect(harness.installs).toEqual([]);
    expect(await harness.workloads.list({ all: true })).toEqual([]);
  });

  it('answers 400 for a server the catalog lacks and 404 for a registry other than default', async () => {
    await expect(harness.workloads.create({ registry: 'default', server: 'nope' })).rejects.toThrow('server nope is not in registry default');
    await expect(harness.workloads.create({ registry: 'team', server: 'weather' })).rejects.toThrow(NotFoundError);
    await expect(harness.workloads.create({ registry: 'default', server: 'weather', image: image('1.0.0') })).rejects.toThrow(
      'give exactly one of image, url, or registry with server',
    );
  });

  it('edits keep the version that runs when the catalog has moved on; switching to an image drops the registry source', async () => {
    const { port } = await harness.workloads.create({ registry: 'default', server: 'weather', env_vars: { ACCOUNT: 'acme' } });
    harness.catalog.servers.set('weather', containerEntry('weather', image('1.1.0'), { env_vars: [declared('NEW_REQUIRED', { required: true })] }));
    const details = await harness.workloads.get('weather');
    // the image in the details goes back as an echo; another image with the reference is refused
    await expect(harness.workloads.update('weather', { ...details, image: image('1.1.0') })).rejects.toThrow(
      `image ${image('1.1.0')} is not what the catalog entry weather runs (${image('1.0.0')})`,
    );
    expect(await harness.workloads.update('weather', { ...details, env_vars: { ACCOUNT: 'other' } })).toEqual({ name: 'weather', port });
    const edited = await harness.workloads.exportConfig('weather');
    expect(edited).toMatchObject({ image: image('1.0.0'), registry_server_name: 'weather', env_vars: { ACCOUNT: 'other', REGION: 'eu' } });

    const plain = { ...details, image: image('1.0.0') };
    delete plain.registry;
    delete plain.server;
    await harness.workloads.update('weather', plain);
    const switched = await harness.workloads.exportConfig('weather');
    expect([switched.registry_server_name, switched.registry_url, registryEntryOf(switched)]).toEqual(['', '', undefined]);
  });

  it('creates a remote server from its catalog entry', async () => {
    harness.catalog.remoteServers.set(
      'search',
      remoteEntry('search', 'https://search.example.com/sse', { transport: 'sse', headers: [{ ...declared('X-Region', { default: 'eu' }), choices: [] }] }),
    );
    await harness.workloads.create({ registry: 'default', server: 'search' });
    expect(await harness.workloads.exportConfig('search')).toMatchObject({
      remote_url: 'https://search.example.com/sse',
      transport: 'sse',
      proxy_mode: 'sse',
      header_forward: { add_plaintext_headers: { 'X-Region': 'eu' } },
      registry_server_name: 'search',
    });
  });
});
