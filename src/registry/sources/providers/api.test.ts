import { describe, expect, it } from 'vitest';
import { serversUrl } from './api.js';

describe('serversUrl', () => {
  it.each([
    ['https://registry.example.dev', 'https://registry.example.dev/v0.1/servers'],
    ['https://registry.example.dev/', 'https://registry.example.dev/v0.1/servers'],
    ['https://registry.example.dev/v0.1', 'https://registry.example.dev/v0.1/servers'],
    ['https://registry.example.dev/v0.1/', 'https://registry.example.dev/v0.1/servers'],
    ['https://registry.example.dev/v0', 'https://registry.example.dev/v0/servers'],
    ['https://registry.example.dev/v0/servers', 'https://registry.example.dev/v0/servers'],
    ['https://registry.example.dev/v0.1/servers', 'https://registry.example.dev/v0.1/servers'],
    ['https://registry.example.dev/v0.1/servers/', 'https://registry.example.dev/v0.1/servers'],
    ['https://example.dev/registry/default', 'https://example.dev/registry/default/v0.1/servers'],
    ['https://example.dev/registry/default/v0.1', 'https://example.dev/registry/default/v0.1/servers'],
    ['http://127.0.0.1:8080//', 'http://127.0.0.1:8080/v0.1/servers'],
  ])('turns %s into %s', (endpoint, expected) => {
    expect(serversUrl(endpoint).toString()).toBe(expected);
  });

  it('does not mistake a path that merely ends like a version for one', () => {
    expect(serversUrl('https://example.dev/api/v01').toString()).toBe('https://example.dev/api/v01/v0.1/servers');
    expect(serversUrl('https://example.dev/v0.10').toString()).toBe('https://example.dev/v0.10/v0.1/servers');
  });

  it('keeps a query string of the endpoint', () => {
    const url = serversUrl('https://registry.example.dev/v0.1?tenant=a');
    expect(url.pathname).toBe('/v0.1/servers');
    expect(url.searchParams.get('tenant')).toBe('a');
  });

  it('throws on an endpoint that is not a URL', () => {
    expect(() => serversUrl('registry.example.dev')).toThrow(TypeError);
  });
});
