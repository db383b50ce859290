import { describe, expect, it } from 'vitest';
import { parsePort } from './proxy-port.js';
import { runRequest } from './runtime-format.js';

const none = { env: [], secret: [] };

describe('the create body of toolyard run', () => {
  it('tells packages, remote servers and registry names apart', () => {
    expect(runRequest('npx://@modelcontextprotocol/server-memory@1.0.0', [], none)).toEqual({ image: 'npx://@modelcontextprotocol/server-memory@1.0.0' });
    expect(runRequest('uvx://mcp-server-fetch', [], none)).toEqual({ image: 'uvx://mcp-server-fetch' });
    expect(runRequest('HTTPS://mcp.example.com/mcp', [], none)).toEqual({ url: 'HTTPS://mcp.example.com/mcp' });
    expect(runRequest('io.github.example/weather', [], none)).toEqual({ registry: 'default', server: 'io.github.example/weather' });
    expect(runRequest('ghcr.io/example/weather:1.2', [], none)).toEqual({ image: 'ghcr.io/example/weather:1.2' });
    expect(runRequest('mcp/fetch@sha256:abc', [], none)).toEqual({ image: 'mcp/fetch@sha256:abc' });
  });

  it('carries the flags and the server arguments', () => {
    const request = runRequest('npx://pkg', ['stdio', '--verbose'], {
      name: 'pkg',
      group: 'team',
      env: ['MODE=a=b', 'EMPTY='],
      secret: ['github-token,target=GITHUB_TOKEN'],
      proxyPort: 12000,
      proxyMode: 'sse',
      transport: 'stdio',
      tools: 'echo, add,,',
    });
    expect(request).toEqual({
      image: 'npx://pkg',
      cmd_arguments: ['stdio', '--verbose'],
      name: 'pkg',
      group: 'team',
      env_vars: { MODE: 'a=b', EMPTY: '' },
      secrets: [{ name: 'github-token', target: 'GITHUB_TOKEN' }],
      proxy_port: 12000,
      proxy_mode: 'sse',
      transport: 'stdio',
      tools: ['echo', 'add'],
    });
  });

  it('names the flag of a malformed value', () => {
    expect(() => runRequest('npx://pkg', [], { ...none, env: ['=x'] })).toThrow('--env: "=x" must be KEY=VALUE');
    expect(() => runRequest('npx://pkg', [], { ...none, secret: ['github-token'] })).toThrow('--secret: "github-token" must be NAME,target=ENV_VAR');
    expect(() => runRequest('npx://pkg', [], { ...none, secret: ['t,target=1X'] })).toThrow('--secret');
    expect(() => parsePort('80')).toThrow('--proxy-port: "80" must be a port number from 1024 to 65535');
    expect(() => parsePort('12e3')).toThrow('--proxy-port');
    expect(parsePort('12000')).toBe(12000);
  });
});
