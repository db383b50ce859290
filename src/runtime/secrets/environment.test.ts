import { describe, expect, it } from 'vitest';
import { createEnvironmentSecretReader, secretVariableName } from './environment.js';

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
