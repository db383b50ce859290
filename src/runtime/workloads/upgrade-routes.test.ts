import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../core/http/app.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { containerEntry } from './registry-testing.js';
import { API_PREFIX } from './routes.js';
import { registerUpgradeRoutes } from './upgrade-routes.js';
import { createUpgradeHarness, image, publishWeatherServer, type PublishedPackage, type UpgradeHarness } from './upgrades-testing.js';

const TOKEN = { name: 'API_TOKEN', description: '', required: true, secret: true, default: '' };

describe('upgrade routes', () => {
  let published: PublishedPackage;
  let harness: UpgradeHarness;
  let app: HttpApp;

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url: `${API_PREFIX}${url}`, ...(payload !== undefined && { payload }) });
  const publish = (version: string) => harness.catalog.servers.set('weather', containerEntry('weather', image(version), { env_vars: [TOKEN], version }));

  beforeAll(async () => {
    published = await publishWeatherServer();
  });
  afterAll(() => published.close());
  beforeEach(async () => {
    harness = await createUpgradeHarness(published, createEnvironmentSecretReader({ TOOLYARD_SECRET_API_TOKEN: 'sk-route-secret' }));
    app = createHttpApp({ logger: silentLogger });
    registerUpgradeRoutes(app, { upgrades: harness.upgrades });
    await app.ready();
    publish('1.0.0');
    await harness.workloads.create({ registry: 'default', server: 'weather' });
  });
  afterEach(async () => {
    await app.close();
    await harness.close();
  });

  it('checks one workload and all of them; unknown workloads and groups are 404', async () => {
    publish('1.1.0');
    const one = await call('GET', '/workloads/weather/upgrade-check');
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({
      result: {
        workload_name: 'weather',
        registry_server: 'weather',
        current_image: image('1.0.0'),
        candidate_image: image('1.1.0'),
        status: 'upgrade-available',
        reason: '1.1.0 is newer than 1.0.0',
        env_var_drift: { added: [], removed: [] },
        config_drift: {},
      },
    });
    const all = await call('GET', '/workloads/upgrade-check?all=true&group=default');
    expect(all.json<{ results: { workload_name: string }[] }>().results.map((result) => result.workload_name)).toEqual(['weather']);
    expect((await call('GET', '/workloads/nope/upgrade-check')).statusCode).toBe(404);
    expect((await call('GET', '/workloads/upgrade-check?group=nope')).statusCode).toBe(404);
    expect((await call('GET', '/workloads/upgrade-check?all=maybe')).statusCode).toBe(400);
  });

  it('upgrades with no body, answers 200 with the no-op check when up to date, and 404 for an unknown workload', async () => {
    const upToDate = await call('POST', '/workloads/weather/upgrade');
    expect(upToDate.statusCode).toBe(200);
    expect(upToDate.json()).toMatchObject({ result: { status: 'up-to-date' } });

    publish('1.1.0');
    const upgraded = await call('POST', '/workloads/weather/upgrade');
    expect(upgraded.statusCode).toBe(200);
    expect(upgraded.json()).toMatchObject({ result: { status: 'upgraded', candidate_image: image('1.1.0') } });
    expect((await harness.workloads.exportConfig('weather')).image).toBe(image('1.1.0'));
    expect(upgraded.body).not.toContain('sk-route-secret');
    expect((await call('POST', '/workloads/nope/upgrade', {})).statusCode).toBe(404);
  });

  it('refuses secret values with 400 and answers 422 with the reason when the candidate cannot be prepared', async () => {
    publish('1.1.0');
    const withValue = await call('POST', '/workloads/weather/upgrade', { secrets: [{ name: 'api_token', target: 'API_TOKEN', value: 'sk-x' }] });
    expect(withValue.statusCode).toBe(400);
    expect(withValue.json<{ error: string }>().error).toMatch(/unknown field/);

    publish('1.2.0');
    const failed = await call('POST', '/workloads/weather/upgrade', {});
    expect(failed.statusCode).toBe(422);
    expect(failed.json<{ error: string }>().error).toMatch(/weather-server@1\.2\.0 cannot be prepared, so weather was left as it was/);
    expect((await harness.workloads.exportConfig('weather')).image).toBe(image('1.0.0'));
  });
});
