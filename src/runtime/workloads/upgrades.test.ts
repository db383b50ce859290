import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { containerEntry } from './registry-testing.js';
import { compareImages, UpgradeNotPossibleError } from './upgrades.js';
import { createUpgradeHarness, image, publishWeatherServer, type PublishedPackage, type UpgradeHarness } from './upgrades-testing.js';

const declared = (name: string, fields: { required?: boolean; secret?: boolean; default?: string } = {}) => ({
  name,
  description: '',
  required: fields.required ?? false,
  secret: fields.secret ?? false,
  default: fields.default ?? '',
});

const API_TOKEN = declared('API_TOKEN', { required: true, secret: true });
const LEGACY = declared('LEGACY_MODE');
const DAYS = declared('FORECAST_DAYS', { required: true });
const PASSWORD = declared('DB_PASSWORD', { secret: true });

describe('comparing images offline', () => {
  it('compares the tags of one package as semantic versions', () => {
    expect(compareImages(image('1.0.0'), image('1.1.0'), false)).toEqual({ status: 'upgrade-available', reason: '1.1.0 is newer than 1.0.0' });
    expect(compareImages(image('1.1.0'), image('1.1.0'), false).status).toBe('up-to-date');
    expect(compareImages(image('1.2.0'), image('1.1.0'), false)).toEqual({ status: 'up-to-date', reason: "1.2.0 is newer than the catalog's 1.1.0" });
    expect(compareImages('go://github.com/acme/tool@v1.9.0', 'go://github.com/acme/tool@v1.10.0', false).status).toBe('upgrade-available');
    expect(compareImages('uvx://mcp-fetch@1.2', 'uvx://mcp-fetch@1.10', false).status).toBe('upgrade-available');
    expect(compareImages('ghcr.io/acme/weather:1.0.0', 'ghcr.io/acme/weather:2.0.0-rc.1', false).status).toBe('upgrade-available');
  });

  it('cannot tell for latest, a digest, a tag that is not a version, or another package', () => {
    expect(compareImages(image('1.0.0'), 'npx://@acme/weather-server', false)).toEqual({
      status: 'unknown',
      reason: 'the latest tag cannot be compared offline; pin a version',
    });
    expect(compareImages('ghcr.io/acme/weather:latest', 'ghcr.io/acme/weather:latest', false).status).toBe('unknown');
    expect(compareImages('ghcr.io/acme/weather@sha256:aa', 'ghcr.io/acme/weather@sha256:bb', false).reason).toMatch(/digest/);
    expect(compareImages('ghcr.io/acme/weather:stable', 'ghcr.io/acme/weather:1.0.0', false).reason).toBe('tag stable is not a semantic version');
    expect(compareImages(image('1.0.0'), 'npx://@other/weather-server@2.0.0', false)).toMatchObject({ status: 'unknown', reason: expect.stringContaining('different package') as string });
  });
});

describe('registry-driven upgrades (fake catalog, real npm against fake registries)', () => {
  let published: PublishedPackage;
  let harness: UpgradeHarness;

  beforeAll(async () => {
    published = await publishWeatherServer();
  });
  afterAll(() => published.close());
  beforeEach(async () => {
    harness = await createUpgradeHarness(published, createEnvironmentSecretReader({ TOOLYARD_SECRET_API_TOKEN: 'sk-catalog-secret', TOOLYARD_SECRET_DB: 'pw' }));
    harness.catalog.servers.set('weather', containerEntry('weather', image('1.0.0'), { args: ['--fast'], env_vars: [API_TOKEN, LEGACY] }));
  });
  afterEach(() => harness.close());

  const createWeather = () =>
    harness.workloads.create({ registry: 'default', server: 'weather', labels: { team: 'a' }, tools: ['forecast'], env_vars: { UNITS: 'metric' } });
  const publish = (version: string, fields: Parameters<typeof containerEntry>[2] = {}) =>
    harness.catalog.servers.set('weather', containerEntry('weather', image(version), { args: ['--fast'], version, ...fields }));

  it('sees a newer catalog version with its env var and permission drift, without fetching anything', async () => {
    await createWeather();
    publish('1.1.0', { env_vars: [API_TOKEN, DAYS], permissions: { network: { outbound: { allow_host: ['api.weather.example'] } } } });
    const before = published.requests().length;
    expect(await harness.upgrades.check('weather')).toEqual({
      workload_name: 'weather',
      registry_server: 'weather',
      current_image: image('1.0.0'),
      candidate_image: image('1.1.0'),
      status: 'upgrade-available',
      reason: '1.1.0 is newer than 1.0.0',
      env_var_drift: { added: [DAYS], removed: [LEGACY] },
      config_drift: { permission_profile: { from: {}, to: { network: { outbound: { allow_host: ['api.weather.example'] } } } } },
    });
    expect(published.requests().slice(before)).toEqual([]);
  });

  it('applies: a newly required env var is a 400 before any install, then 1.1.0 is installed and the workload recreated keeping its port and configuration', async () => {
    const { port } = await createWeather();
    const before = await harness.workloads.exportConfig('weather');
    publish('1.1.0', { env_vars: [API_TOKEN, DAYS] });

    const requests = published.requests().length;
    const missing = await harness.upgrades.apply('weather').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(InvalidInputError);
    expect((missing as Error).message).toContain('FORECAST_DAYS');
    expect(published.requests().slice(requests)).toEqual([]);
    expect((await harness.workloads.exportConfig('weather')).image).toBe(image('1.0.0'));

    const result = await harness.upgrades.apply('weather', { env: { FORECAST_DAYS: '3' } });
    expect(result).toMatchObject({ status: 'upgraded', current_image: image('1.0.0'), candidate_image: image('1.1.0'), reason: `upgraded from ${image('1.0.0')} to ${image('1.1.0')}` });
    const after = await harness.workloads.exportConfig('weather');
    expect(after).toMatchObject({
      image: image('1.1.0'),
      port,
      labels: { team: 'a' },
      tools_filter: ['forecast'],
      cmd_args: ['--fast'],
      env_vars: { UNITS: 'metric', FORECAST_DAYS: '3' },
      secrets: [{ name: 'api_token', target: 'API_TOKEN' }],
      created_at: before.created_at,
    });
    expect(after.command?.args[0]).toContain('@acme_weather-server@1.1.0');
    expect(harness.supervisor.stops).toEqual(['weather']);
    expect((await harness.workloads.status('weather')).status).toBe('running');

    expect(await harness.upgrades.check('weather')).toMatchObject({ status: 'up-to-date', env_var_drift: { added: [], removed: [] } });
    // up to date: a no-op returning the check, with no restart
    expect((await harness.upgrades.apply('weather')).status).toBe('up-to-date');
    expect(harness.supervisor.stops).toEqual(['weather']);
  });

  it('answers 422 when the candidate cannot be installed, leaving the workload as it was', async () => {
    await createWeather();
    const before = await harness.workloads.exportConfig('weather');
    publish('1.2.0');
    const error = await harness.upgrades.apply('weather').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpgradeNotPossibleError);
    expect((error as UpgradeNotPossibleError).status).toBe(422);
    expect((error as Error).message).toMatch(/^npx:\/\/@acme\/weather-server@1\.2\.0 cannot be prepared, so weather was left as it was: npm could not install/);
    expect(await harness.workloads.exportConfig('weather')).toEqual(before);
    expect(harness.supervisor.stops).toEqual([]);
    expect((await harness.workloads.status('weather')).status).toBe('running');
  });

  it('takes secrets only as references: a value in the body or a secret env var given in plain is a 400', async () => {
    await createWeather();
    publish('1.1.0', { env_vars: [API_TOKEN, PASSWORD] });
    const withValue = { secrets: [{ name: 'db', target: 'DB_PASSWORD', value: 'hunter2' }] };
    await expect(harness.upgrades.apply('weather', withValue)).rejects.toThrow(InvalidInputError);
    await expect(harness.upgrades.apply('weather', { env: { DB_PASSWORD: 'hunter2' } })).rejects.toThrow(
      'DB_PASSWORD is a secret: store the value in the secrets provider and pass {name, target} in secrets',
    );
    const result = await harness.upgrades.apply('weather', { secrets: [{ name: 'db', target: 'DB_PASSWORD' }] });
    expect(result.status).toBe('upgraded');
    expect((await harness.workloads.exportConfig('weather')).secrets).toEqual([
      { name: 'db', target: 'DB_PASSWORD' },
      { name: 'api_token', target: 'API_TOKEN' },
    ]);
  });

  it('reports not-registry-sourced, server-not-found, a latest tag and an unreadable catalog; apply is a no-op or a 422', async () => {
    const local = join(harness.paths.data, 'local-server');
    await mkdir(local, { recursive: true });
    await writeFile(join(local, 'package.json'), JSON.stringify({ name: 'local-server', bin: 'server.js' }));
    await harness.workloads.create({ name: 'local', image: `npx://${local}` });
    expect(await harness.upgrades.check('local')).toMatchObject({ status: 'not-registry-sourced', registry_server: '', candidate_image: '' });
    expect((await harness.upgrades.apply('local')).status).toBe('not-registry-sourced');

    await createWeather();
    harness.catalog.servers.set('weather', containerEntry('weather', 'npx://@acme/weather-server@latest'));
    expect(await harness.upgrades.check('weather')).toMatchObject({ status: 'unknown', reason: 'the latest tag cannot be compared offline; pin a version' });
    await expect(harness.upgrades.apply('weather')).rejects.toThrow(UpgradeNotPossibleError);

    harness.catalog.unavailable = true;
    expect(await harness.upgrades.check('weather')).toMatchObject({ status: 'unknown', reason: 'registry default cannot be read: the catalog cannot be read' });
    harness.catalog.unavailable = false;

    harness.catalog.servers.delete('weather');
    expect(await harness.upgrades.check('weather')).toMatchObject({ status: 'server-not-found', reason: 'server weather is no longer in registry default' });
    await expect(harness.upgrades.apply('weather')).rejects.toThrow('cannot upgrade weather: server weather is no longer in registry default');
    await expect(harness.upgrades.check('nope')).rejects.toThrow(NotFoundError);
  });

  it('checks all workloads: running ones unless all, by group, and 404 for an unknown group', async () => {
    await createWeather();
    await harness.workloads.create({ name: 'stopped-weather', registry: 'default', server: 'weather' });
    await (await harness.workloads.stop(['stopped-weather'])).done;
    publish('1.1.0');
    expect((await harness.upgrades.checkAll({})).map((result) => [result.workload_name, result.status])).toEqual([['weather', 'upgrade-available']]);
    expect((await harness.upgrades.checkAll({ all: true, group: 'default' })).map((result) => result.workload_name)).toEqual(['stopped-weather', 'weather']);
    await expect(harness.upgrades.checkAll({ group: 'nope' })).rejects.toThrow(NotFoundError);
  });
});
