import { beforeAll, describe, expect, it } from 'vitest';
import { registryTestApp, type RegistryTestApp } from '../../src/runtime/registry/registry-testing.js';
import type { ContainerServerEntry, RemoteServerEntry, ServerLookup } from '../../src/runtime/registry/schemas.js';
import { MCP_INSIGHTS, UPSTREAM_EXAMPLE } from '../helpers/registry.js';

const TOOLHIVE_LEGACY = new URL('../fixtures/toolhive-registry.json', import.meta.url).pathname;

const container = (lookup: ServerLookup | undefined): ContainerServerEntry => {
  if (lookup?.is_remote !== false) throw new Error(`expected a container entry, got ${JSON.stringify(lookup)}`);
  return lookup.server;
};
const remote = (lookup: ServerLookup | undefined): RemoteServerEntry => {
  if (lookup?.is_remote !== true) throw new Error(`expected a remote entry, got ${JSON.stringify(lookup)}`);
  return lookup.remote_server;
};

describe('records of the public MCP Registry (a crawl of 2,794 versions)', () => {
  let runtime: RegistryTestApp;
  beforeAll(async () => {
    runtime = await registryTestApp();
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: MCP_INSIGHTS })).body).toEqual({ type: 'file' });
  });
  const find = (name: string) => runtime.registry.findServer('default', name);

  it('keeps the latest version of each name and leaves out what the runtime cannot run', async () => {
    const { body } = await runtime.call<{ registries: { server_count: number }[] }>('GET', '/api/v1beta/registry');
    // 1,108 names; 66 offer only nuget or mcpb packages, or nothing at all
    expect(body.registries[0]?.server_count).toBe(1042);
    const browse = await runtime.call<{ metadata: { total: number } }>('GET', '/registry/default/v0.1/servers?limit=1');
    expect(browse.body.metadata.total).toBe(1108);
    // the registry marked the release candidate latest: its word wins over any ordering of versions
    expect(remote(await find('io.github.github/github-mcp-server')).version).toBe('0.26.0-rc.3');
  });

  it('maps an npm package to npx:// with its fixed arguments', async () => {
    expect(container(await find('io.github.GLips/Figma-Context-MCP'))).toMatchObject({ name: 'Figma-Context-MCP', image: 'npx://figma-developer-mcp@0.6.0', args: ['--stdio'], transport: 'stdio' });
  });

  it('maps a pypi package to uvx:// with its environment variables', async () => {
    expect(container(await find('google-analytics-mcp'))).toMatchObject({
      image: 'uvx://google-analytics-mcp@1.2.0',
      env_vars: [{ name: 'YOUR_API_KEY', description: 'Your API key for the service', required: true, secret: true, default: '' }],
      repository_url: 'https://github.com/surendranb/google-analytics-mcp',
      version: '1.0.0',
    });
  });

  it('maps an oci package to its image reference', async () => {
    expect(container(await find('io.github.dockersamples/mcp-docker-release-information'))).toMatchObject({
      name: 'mcp-docker-release-information',
      image: 'docker.io/dockersamples/mcp-docker-release-information:0.3.0',
    });
  });

  it('maps remotes to remote servers with their headers', async () => {
    expect(remote(await find('ai.smithery/arjunkmrm-perplexity-search'))).toEqual(
      expect.objectContaining({
        name: 'arjunkmrm-perplexity-search',
        url: 'https://server.smithery.ai/@arjunkmrm/perplexity-search/mcp',
        transport: 'streamable-http',
        headers: [{ name: 'Authorization', description: 'Bearer token for Smithery authentication', required: true, secret: true, default: '', choices: [] }],
      }) as RemoteServerEntry,
    );
  });

  it('names colliding servers by their full name, except the first by full name', async () => {
    expect(remote(await find('gmail')).url).toBe('https://waystation.ai/gmail/mcp');
    const mintmcp = await find('com.mintmcp/gmail');
    expect(remote(mintmcp).name).toBe('com.mintmcp-gmail');
    expect(await find('com.mintmcp-gmail')).toEqual(mintmcp);
    const { body } = await runtime.call<{ servers: ContainerServerEntry[]; remote_servers: RemoteServerEntry[] }>('GET', '/api/v1beta/registry/default/servers');
    const names = [...body.servers, ...body.remote_servers].map((entry) => entry.name);
    expect(new Set(names).size).toBe(1042);
    expect(names.filter((entry) => entry === 'mcp')).toHaveLength(1);
    expect(await find('mcp')).toEqual(await find('ai.tickettailor/mcp'));
    expect(names).toContain('com.stripe-mcp');
  });
});

describe('ToolHive catalogs', () => {
  it('reads the local registry form and the upstream form to the same entry', async () => {
    const legacy = await registryTestApp();
    await legacy.call('PUT', '/api/v1beta/registry/default', { local_path: TOOLHIVE_LEGACY });
    const upstream = await registryTestApp();
    await upstream.call('PUT', '/api/v1beta/registry/default', { local_path: UPSTREAM_EXAMPLE });

    const { body } = await legacy.call<{ registries: { server_count: number; version: string; last_updated: string }[] }>('GET', '/api/v1beta/registry');
    expect(body.registries[0]).toMatchObject({ server_count: 102, version: '1.0.0', last_updated: '2026-02-18T00:24:11Z' });
    const fields = ['name', 'image', 'transport', 'env_vars', 'tier', 'status', 'tools', 'tags', 'permissions', 'repository_url'] as const;
    const pick = (entry: ContainerServerEntry) => Object.fromEntries(fields.map((field) => [field, entry[field]]));
    const fromLegacy = container(await legacy.registry.findServer('default', 'adb-mysql-mcp-server'));
    const fromUpstream = container(await upstream.registry.findServer('default', 'io.github.stacklok/adb-mysql-mcp-server'));
    expect(pick(fromUpstream)).toEqual(pick(fromLegacy));
    expect(fromLegacy).toMatchObject({ tier: 'Official', tools: ['execute_sql', 'get_query_plan', 'get_execution_plan'], env_vars: expect.arrayContaining([expect.objectContaining({ name: 'ADB_MYSQL_PASSWORD', secret: true, required: true })]) as unknown });

    expect(remote(await legacy.registry.findServer('default', 'atlassian-remote'))).toMatchObject({ url: 'https://mcp.atlassian.com/v1/sse', transport: 'sse', custom_metadata: { author: 'Atlassian' } });
    const browsed = await legacy.call<{ name: string; remotes: { url: string }[] }>('GET', '/registry/default/v0.1/servers/atlassian-remote/versions/latest');
    expect(browsed.body).toMatchObject({ name: 'atlassian-remote', remotes: [{ url: 'https://mcp.atlassian.com/v1/sse' }] });
  });
});
