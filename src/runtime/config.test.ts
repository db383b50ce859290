import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config/load.js';
import { configKey, loadRuntimeConfig } from './config.js';

describe('the runtime configuration', () => {
  it('reads its keys from TOOLYARD_RUNTIME_ variables, camelCase keys written with underscores', () => {
    expect(loadRuntimeConfig({ TOOLYARD_RUNTIME_SIGSTORE_TRUSTED_ROOT: '/etc/toolyard/trusted_root.json', TOOLYARD_RUNTIME_SIGSTORE_FULCIOURL: 'https://fulcio.example.test', PATH: '/bin' })).toEqual({
      sigstore: { trustedRoot: '/etc/toolyard/trusted_root.json', fulcioUrl: 'https://fulcio.example.test' },
    });
    expect(loadRuntimeConfig({})).toEqual({ sigstore: {} });
  });

  it('refuses a variable naming no key, so a misspelt one is not silently ignored', () => {
    expect(() => loadRuntimeConfig({ TOOLYARD_RUNTIME_SIGSTORE_TRUSTEDROOTS: '/x' })).toThrow(ConfigError);
    expect(() => loadRuntimeConfig({ TOOLYARD_RUNTIME_SIGSTORE_TRUSTEDROOTS: '/x' })).toThrow('TOOLYARD_RUNTIME_SIGSTORE_TRUSTEDROOTS: does not name a configuration key');
  });

  it('names a key with the variable that sets it, for messages', () => {
    expect(configKey('sigstore.rekorUrl')).toBe('sigstore.rekorUrl (TOOLYARD_RUNTIME_SIGSTORE_REKOR_URL)');
  });
});
