import { describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { applyEntry, entryOf, entryWorkloadName, findEntry } from './registry-source.js';
import { containerEntry, createFakeRegistryLookup, remoteEntry } from './registry-testing.js';

const declared = (name: string, fields: { required?: boolean; secret?: boolean; default?: string } = {}) => ({
  name,
  description: `${name} for tests`,
  required: fields.required ?? false,
  secret: fields.secret ?? false,
  default: fields.default ?? '',
});

const weather = entryOf(
  'default',
  {
    is_remote: false,
    server: containerEntry('weather', 'npx://@acme/weather-server@1.0.0', {
      transport: 'sse',
      args: ['--units', 'metric'],
      env_vars: [
        declared('API_KEY', { required: true, secret: true }),
        declared('DB_PASSWORD', { secret: true }),
        declared('REGION', { required: true, default: 'eu' }),
        declared('ACCOUNT', { required: true }),
        declared('VERBOSE'),
      ],
    }),
  },
);

// the environment provider reads TOOLYARD_SECRET_<NAME>, so `api_key` and `API_KEY` are one secret there
const secrets = createEnvironmentSecretReader({ TOOLYARD_SECRET_API_KEY: 'sk-test' });

describe('a registry reference made concrete', () => {
  it('applies the entry under the body: image, transport, arguments, defaults, and a stored secret as a reference', async () => {
    const request = await applyEntry({ registry: 'default', server: 'weather', env_vars: { ACCOUNT: 'acme' } }, weather, secrets);
    expect(request).toEqual({
      image: 'npx://@acme/weather-server@1.0.0',
      transport: 'sse',
      cmd_arguments: ['--units', 'metric'],
      env_vars: { ACCOUNT: 'acme', REGION: 'eu' },
      secrets: [{ name: 'api_key', target: 'API_KEY' }],
    });
  });

  it('keeps what the body gives over the entry', async () => {
    const request = await applyEntry(
      {
        registry: 'default',
        server: 'weather',
        transport: 'stdio',
        cmd_arguments: [],
        env_vars: { ACCOUNT: 'acme', REGION: 'us' },
        secrets: [{ name: 'team-key', target: 'API_KEY' }],
      },
      weather,
      secrets,
    );
    expect(request).toMatchObject({ transport: 'stdio', cmd_arguments: [], env_vars: { ACCOUNT: 'acme', REGION: 'us' }, secrets: [{ name: 'team-key', target: 'API_KEY' }] });
  });

  it('names every missing required env var in one 400', async () => {
    const error = await applyEntry({ registry: 'default', server: 'weather' }, weather, createEnvironmentSecretReader({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe('server weather requires the env vars API_KEY, ACCOUNT (in env_vars, or as secrets {name, target})');
  });

  it('fills a remote server: url, default headers, secret headers from the store, and names missing required headers', async () => {
    const remote = entryOf('default', {
      is_remote: true,
      remote_server: remoteEntry('search', 'https://search.example.com/mcp', {
        transport: 'sse',
        headers: [
          { ...declared('X-Api-Key', { required: true, secret: true }), choices: [] },
          { ...declared('X-Region', { default: 'eu' }), choices: [] },
          { ...declared('X-Tenant', { required: true }), choices: [] },
        ],
      }),
    });
    const keyStore = createEnvironmentSecretReader({ TOOLYARD_SECRET_X_API_KEY: 'k' });
    const request = await applyEntry({ registry: 'default', server: 'search', headers: ['X-Tenant: acme'] }, remote, keyStore);
    expect(request).toEqual({
      url: 'https://search.example.com/mcp',
      transport: 'sse',
      headers: ['X-Tenant: acme', 'X-Region: eu'],
      header_forward: { add_headers_from_secret: { 'X-Api-Key': 'x-api-key' } },
    });
    await expect(applyEntry({ registry: 'default', server: 'search' }, remote, createEnvironmentSecretReader({}))).rejects.toThrow(
      'server search requires the headers X-Api-Key, X-Tenant (in headers or header_forward)',
    );
  });

  it('finds only in the default registry, and says which server a registry lacks', async () => {
    const fake = createFakeRegistryLookup();
    fake.servers.set('weather', containerEntry('weather', 'npx://@acme/weather-server@1.0.0'));
    await expect(findEntry(fake.lookup, { registry: 'team', server: 'weather' })).rejects.toThrow(NotFoundError);
    await expect(findEntry(fake.lookup, { registry: 'default', server: 'nope' })).rejects.toThrow('server nope is not in registry default');
    expect((await findEntry(fake.lookup, { registry: 'default', server: 'weather' })).image).toBe('npx://@acme/weather-server@1.0.0');
  });

  it('names a workload after the last part of a reverse-DNS entry name', () => {
    expect(entryWorkloadName({ ...weather, server: 'io.github.acme/weather-server' })).toBe('weather-server');
  });
});
