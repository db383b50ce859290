import { describe, expect, it } from 'vitest';
import { parseClaims, phaseOf, readExport, type KubeObject } from './objects.js';

const exported = { 'toolyard.dev/registry-export': 'true' };

describe('kubernetes export annotations', () => {
  it('parses claims of strings and string lists only', () => {
    expect(parseClaims('{"a":"b","c":["d"]}')).toEqual({ a: 'b', c: ['d'] });
    expect(parseClaims(undefined)).toEqual({});
    expect(parseClaims('{"a":1}')).toMatch(/must map to a string/);
    expect(parseClaims('{oops')).toMatch(/not valid JSON/);
  });

  it('reads the remote of a custom resource from spec.url, or spec.port on the Service of its name', () => {
    const resource = (spec: KubeObject['spec']): KubeObject => ({ kind: 'MCPServer', metadata: { name: 'fetch', namespace: 'tools', annotations: exported }, spec });
    expect(readExport(resource({ url: 'https://fetch.example.com/mcp' }), false)).toMatchObject({ kind: 'server', server: { url: 'https://fetch.example.com/mcp', transport: 'streamable-http' } });
    expect(readExport(resource({ port: 9000 }), false)).toMatchObject({ kind: 'server', server: { url: 'http://fetch.tools.svc.cluster.local:9000/mcp', where: 'MCPServer tools/fetch' } });
    expect(readExport(resource({}), false)).toMatchObject({ kind: 'skipped', error: true });
  });

  it('reads status.phase only when it is a string', () => {
    expect(phaseOf({ status: { phase: 'Running' } })).toBe('Running');
    expect(phaseOf({ status: { phase: 3 } })).toBeUndefined();
    expect(phaseOf({})).toBeUndefined();
  });
});
