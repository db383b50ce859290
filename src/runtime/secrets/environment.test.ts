import { describe, expect, it } from 'vitest';
import { createEnvironmentSecretReader, createEnvironmentSecretsProvider, secretVariableName } from './environment.js';

describe('environment secret reader', () => {
  it('maps a key to TOOLYARD_SECRET_ with non-alphanumerics as underscores', () => {
    expect(secretVariableName('github-token')).toBe('TOOLYARD_SECRET_GITHUB_TOKEN');
    expect(secretVariableName('my.api key')).toBe('TOOLYARD_SECRET_MY_API_KEY');
  });

  it('reads the value from the map it was given and answers undefined for a missing key', async () => {
    const secrets = createEnvironmentSecretReader({ TOOLYARD_SECRET_GITHUB_TOKEN: 'ghp_x', GITHUB_TOKEN: 'other' });
    expect(await secrets.get('github-token')).toBe('ghp_x');
    expect(await secrets.get('GITHUB_TOKEN')).toBe('ghp_x');
    expect(await secrets.get('missing')).toBeUndefined();
  });
});

describe('environment secrets provider', () => {
  it('reads TOOLYARD_SECRET_<NAME> and refuses to write, delete or list', async () => {
    const provider = createEnvironmentSecretsProvider({ TOOLYARD_SECRET_API_KEY: 'k' });
    expect(await provider.get('api-key')).toBe('k');
    expect(provider.capabilities).toEqual({ read: true, write: false, list: false, delete: false });
    await expect(provider.set('api-key', 'x', 'existing')).rejects.toMatchObject({ status: 405 });
    await expect(provider.delete('api-key')).rejects.toMatchObject({ status: 405 });
    await expect(provider.list()).rejects.toThrow('the environment secrets provider cannot list secrets');
  });
});
