/**
 * A deterministic synthetic catalog for the registry benchmark: `servers` servers with `versions`
 * versions each, shaped like records of the public MCP Registry (description, packages, remotes,
 * repository, publisher `_meta` with tags), served as the list of `{server, _meta}` records an MCP
 * Registry API returns. The same arguments always give the same bytes, and `keep` selects servers by
 * index without changing the bytes of the servers it keeps (the authorization-on benchmark splits one
 * catalog over two sources this way).
 */
import { seededRandom } from '../src/core/random-testing.js';

const WORDS = [
  'weather', 'github', 'postgres', 'slack', 'notion', 'calendar', 'search', 'browser', 'memory', 'files',
  'jira', 'linear', 'stripe', 'shopify', 'figma', 'docker', 'kubernetes', 'terraform', 'sentry', 'datadog',
  'email', 'maps', 'translate', 'finance', 'crypto', 'news', 'youtube', 'spotify', 'twitter', 'reddit',
  'airtable', 'sheets', 'drive', 'dropbox', 'redis', 'mongo', 'sqlite', 'vector', 'pdf', 'images',
];
const TAGS = ['productivity', 'developer-tools', 'data', 'communication', 'cloud', 'ai', 'security', 'finance', 'media', 'search'];
const VERBS = ['Query', 'Manage', 'Search', 'Automate', 'Inspect', 'Sync', 'Summarize', 'Monitor'];
const OBJECTS = ['issues and pull requests', 'tables and rows', 'messages and channels', 'documents', 'events', 'dashboards', 'files and folders', 'records'];


function pick<T>(list: readonly T[], next: () => number): T {
  return list[Math.floor(next() * list.length)] as T;
}

export interface SeedCatalog {
  /** The catalog file content: `{servers: [{server, _meta}]}`. */
  text: string;
  /** Every (kept) server name, in generation order. */
  names: string[];
  records: number;
}

export function serverName(index: number): string {
  const word = WORDS[index % WORDS.length] as string;
  return `io.github.bench-org-${String(Math.floor(index / 7)).padStart(4, '0')}/${word}-mcp-${String(index).padStart(5, '0')}`;
}

export function generateSeedCatalog(servers: number, versions: number, keep: (index: number) => boolean = () => true): SeedCatalog {
  const next = seededRandom(20_260_101);
  const names: string[] = [];
  const records: unknown[] = [];
  const start = Date.UTC(2025, 0, 1);
  for (let index = 0; index < servers; index++) {
    const name = serverName(index);
    const kept = keep(index);
    if (kept) names.push(name);
    const [owner, repo] = name.replace('io.github.', '').split('/') as [string, string];
    const word = WORDS[index % WORDS.length] as string;
    const tags = [pick(TAGS, next), pick(TAGS, next), word];
    const minor = Math.floor(next() * 20);
    for (let v = 0; v < versions; v++) {
      const version = `1.${minor + v}.${Math.floor(next() * 10)}`;
      const publishedAt = new Date(start + index * 60_000 + v * 86_400_000).toISOString();
      const server = {
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
        name,
        title: `${word[0]?.toUpperCase() ?? ''}${word.slice(1)} MCP ${index}`,
        description: `${pick(VERBS, next)} ${word} ${pick(OBJECTS, next)} from your assistant: an MCP server with read and write tools, version ${version}.`,
        version,
        repository: { url: `https://github.com/${owner}/${repo}`, source: 'github', id: String(100_000_000 + index) },
        websiteUrl: `https://${owner}.github.io/${repo}`,
        packages: [
          {
            registryType: 'npm',
            registryBaseUrl: 'https://registry.npmjs.org',
            identifier: `@${owner}/${repo}`,
            version,
            transport: { type: 'stdio' },
            runtimeHint: 'npx',
            environmentVariables: [
              { name: `${word.toUpperCase()}_API_KEY`, description: `API key for ${word}`, isRequired: true, isSecret: true, format: 'string' },
              { name: 'LOG_LEVEL', description: 'log verbosity', isRequired: false, default: 'info', format: 'string' },
            ],
          },
        ],
        ...(index % 3 === 0 && { remotes: [{ type: 'streamable-http', url: `https://mcp.${owner}.example.com/${repo}/mcp` }] }),
        _meta: {
          'io.modelcontextprotocol.registry/publisher-provided': {
            tags,
            'dev.toolyard.bench': { category: tags[0], stars: Math.floor(next() * 5000), tags: [word] },
          },
        },
      };
      if (!kept) continue;
      records.push({
        server,
        _meta: {
          'io.modelcontextprotocol.registry/official': {
            status: 'active',
            publishedAt,
            updatedAt: publishedAt,
            isLatest: v === versions - 1,
          },
        },
      });
    }
  }
  return { text: JSON.stringify({ servers: records }), names, records: records.length };
}
