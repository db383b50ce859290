import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { baseName, buildRunConfig, missingSecrets, sourceOf, validateRequest } from './run-config.js';
import type { WorkloadRequest } from './schemas.js';

const nameFor = (request: WorkloadRequest): string => baseName(sourceOf(request));

describe('run configuration rules', () => {
  it('derives a name from what runs', () => {
    expect(nameFor({ image: 'npx://@scope/pkg@1.2' })).toBe('pkg');
    expect(nameFor({ image: 'npx://./servers/my-server' })).toBe('my-server');
    expect(nameFor({ image: 'uvx://mcp-server-fetch[cli]@1.0' })).toBe('mcp-server-fetch');
    expect(nameFor({ image: 'go://github.com/acme/tools/cmd/weather/v3@v3.0.1' })).toBe('weather');
    expect(nameFor({ url: 'https://api.example.com/mcp' })).toBe('api.example.com');
  });

  it('needs exactly one of image, url, or registry with server', () => {
    expect(() => validateRequest({})).toThrow('give exactly one of image, url, or registry with server');
    expect(() => validateRequest({ image: 'npx://a', url: 'https://x' })).toThrow('give exactly one');
    expect(() => validateRequest({ registry: 'default', server: 'io.github.x/y' })).toThrow(
      'registry references need a configured registry',
    );
    expect(() => validateRequest({ url: 'ftp://example.com/' })).toThrow('url must be an http or https URL');
  });

  it('accepts runtime_config on create only for protocol-scheme images (rule 2)', () => {
    expect(() => validateRequest({ image: 'uvx://tool', runtime_config: { additional_packages: ['x'] } })).not.toThrow();
    expect(() => validateRequest({ image: 'ghcr.io/acme/server:1', runtime_config: {} })).toThrow(
      'runtime_config is accepted only for npx://, uvx:// and go:// images',
    );
    expect(() => validateRequest({ url: 'https://mcp.example.com/mcp', runtime_config: {} })).toThrow(InvalidInputError);
  });

  it('accepts runtime_config on update of other workloads only as an unchanged echo (rule 3)', () => {
    const saved: WorkloadRequest = { url: 'https://mcp.example.com/mcp', runtime_config: { runtime_env: { A: '1' } } };
    expect(() => validateRequest({ url: 'https://mcp.example.com/mcp', runtime_config: { runtime_env: { A: '1' } } }, saved)).not.toThrow();
    expect(() => validateRequest({ url: 'https://mcp.example.com/mcp', runtime_config: { runtime_env: { A: '2' } } }, saved)).toThrow(
      /runtime_config can change only for npx:\/\/, uvx:\/\/ and go:\/\/ images/,
    );
    expect(() => validateRequest({ url: 'https://other.example.com/mcp', runtime_config: { runtime_env: { A: '1' } } }, saved)).toThrow(InvalidInputError);
  });

  it('refuses what needs a container engine or is not supported yet, saying why', () => {
    expect(() => validateRequest({ image: 'npx://a', volumes: ['/data:/data'] })).toThrow(/volumes needs a container engine/);
    expect(() => validateRequest({ image: 'npx://a', network_isolation: true })).toThrow(/network_isolation needs a container engine/);
    expect(() => validateRequest({ image: 'npx://a', permission_profile: 'network' })).toThrow(/permission_profile "network" needs a container engine/);
    expect(() => validateRequest({ image: 'npx://a', permission_profile: 'none', volumes: [], oidc: {} })).not.toThrow();
    expect(() => validateRequest({ image: 'npx://a', oauth_config: { client_id: 'x' } })).toThrow('oauth_config is not supported yet by the local runtime');
  });

  it('refuses a body the schema rejects, naming the field', () => {
    expect(() => validateRequest({ image: 'npx://a', proxy_read_timeout: 'soon' })).toThrow(/^\/proxy_read_timeout: /);
  });

  it('defaults a remote transport from the URL path and bridges stdio in the chosen mode', () => {
    const remote = buildRunConfig({ request: { url: 'https://x.example/sse' }, source: sourceOf({ url: 'https://x.example/sse' }), name: 'x', group: 'default', port: 12000, targetPort: 0, command: undefined, createdAt: 't' });
    expect([remote.transport, remote.proxy_mode, remote.remote_url]).toEqual(['sse', 'sse', 'https://x.example/sse']);
    const request: WorkloadRequest = { image: 'npx://a', proxy_mode: 'sse', headers: [] };
    const local = buildRunConfig({ request, source: sourceOf(request), name: 'a', group: 'default', port: 12001, targetPort: 0, command: undefined, createdAt: 't' });
    expect([local.transport, local.proxy_mode, local.schema_version]).toEqual(['stdio', 'sse', 'v1.0.0']);
  });

  it('turns static headers into plaintext headers and refuses malformed ones', () => {
    const request: WorkloadRequest = { url: 'https://x.example/mcp', headers: ['X-Team: tools'] };
    const config = buildRunConfig({ request, source: sourceOf(request), name: 'x', group: 'default', port: 12000, targetPort: 0, command: undefined, createdAt: 't' });
    expect(config.header_forward.add_plaintext_headers).toEqual({ 'X-Team': 'tools' });
    expect(() => validateRequest({ url: 'https://x.example/mcp', headers: ['no colon'] })).toThrow('is not in the form "Name: value"');
  });

  it('names the secret keys that are missing, never a value', async () => {
    const secrets = createEnvironmentSecretReader({ TOOLYARD_SECRET_PRESENT: 'value-123' });
    const request: WorkloadRequest = {
      url: 'https://x.example/mcp',
      secrets: [{ name: 'present', target: 'A' }, { name: 'absent', target: 'B' }],
      header_forward: { add_headers_from_secret: { Authorization: 'token-key' } },
    };
    expect(await missingSecrets(request, secrets)).toEqual(['absent', 'token-key']);
  });
});
