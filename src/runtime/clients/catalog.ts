import { dirname, join } from 'node:path';
import type { ConfigFormat, Entry } from './formats/format.js';
import { jsonFormat } from './formats/json.js';
import { tomlFormat } from './formats/toml.js';
import { yamlFormat } from './formats/yaml.js';

/** A running workload as a client sees it: where to connect and how. */
export interface ClientWorkload {
  name: string;
  url: string;
  transport: 'streamable-http' | 'sse';
}

/** The base directories a client's files are found from. */
export interface ClientDirs {
  home: string;
  /** `$XDG_CONFIG_HOME`, or `~/.config`; tools that follow XDG read it on macOS too. */
  xdgConfig: string;
  /** Electron's per-user data directory: `~/Library/Application Support` on macOS, the XDG one on Linux. */
  appData: string;
  /** `~/.config` whatever XDG says: for tools that hard-code it on macOS. */
  dotConfig: string;
  platform: 'linux' | 'darwin';
}

export interface ClientSpec {
  configFile: (dirs: ClientDirs) => string;
  /** Paths whose existence means the client is installed; the config file's directory by default. */
  installedWhen?: (dirs: ClientDirs) => string[];
  format: ConfigFormat;
  entry: (workload: ClientWorkload) => Entry;
  supportsSkills: boolean;
  supportsPlugins: boolean;
}

const sse = (workload: ClientWorkload): boolean => workload.transport === 'sse';
const urlOnly = (workload: ClientWorkload): Entry => ({ url: workload.url });
const httpOrSse = (workload: ClientWorkload): Entry => ({ type: sse(workload) ? 'sse' : 'http', url: workload.url });
/** Every client but Continue and LM Studio documents a skills folder; only Claude Code and Codex take plugins. */
const plain = { supportsSkills: true, supportsPlugins: false };
const noSkills = { supportsSkills: false, supportsPlugins: false };

const vscodeUser = (product: string) => (dirs: ClientDirs) => join(dirs.appData, product, 'User');

/**
 * Every supported client: where its user-level MCP configuration lives, the key that holds the
 * servers and the entry shape it documents. Project-level files are not touched.
 */
export const CLIENTS = {
  'claude-code': {
    configFile: (dirs) => join(dirs.home, '.claude.json'),
    installedWhen: (dirs) => [join(dirs.home, '.claude.json'), join(dirs.home, '.claude')],
    format: jsonFormat('mcpServers'),
    entry: httpOrSse,
    supportsSkills: true,
    supportsPlugins: true,
  },
  cursor: { configFile: (dirs) => join(dirs.home, '.cursor', 'mcp.json'), format: jsonFormat('mcpServers'), entry: urlOnly, ...plain },
  vscode: { configFile: (dirs) => join(vscodeUser('Code')(dirs), 'mcp.json'), format: jsonFormat('servers'), entry: httpOrSse, ...plain },
  'vscode-insider': { configFile: (dirs) => join(vscodeUser('Code - Insiders')(dirs), 'mcp.json'), format: jsonFormat('servers'), entry: httpOrSse, ...plain },
  cline: {
    configFile: (dirs) => join(vscodeUser('Code')(dirs), 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json'),
    installedWhen: (dirs) => [join(vscodeUser('Code')(dirs), 'globalStorage', 'saoudrizwan.claude-dev')],
    format: jsonFormat('mcpServers'),
    entry: (workload) => ({ url: workload.url, type: sse(workload) ? 'sse' : 'streamableHttp', disabled: false }),
    ...plain,
  },
  windsurf: { configFile: (dirs) => join(dirs.home, '.codeium', 'windsurf', 'mcp_config.json'), format: jsonFormat('mcpServers'), entry: (workload) => ({ serverUrl: workload.url }), ...plain },
  goose: {
    configFile: (dirs) => join(dirs.xdgConfig, 'goose', 'config.yaml'),
    format: yamlFormat({ key: 'extensions', shape: 'map' }),
    entry: (workload) => ({ name: workload.name, type: sse(workload) ? 'sse' : 'streamable_http', uri: workload.url, enabled: true, timeout: 300 }),
    ...plain,
  },
  continue: {
    configFile: (dirs) => join(dirs.home, '.continue', 'config.yaml'),
    format: yamlFormat({ key: 'mcpServers', shape: 'list' }),
    entry: (workload) => ({ name: workload.name, type: sse(workload) ? 'sse' : 'streamable-http', url: workload.url }),
    ...noSkills,
  },
  zed: {
    configFile: (dirs) => join(dirs.platform === 'darwin' ? dirs.dotConfig : dirs.xdgConfig, 'zed', 'settings.json'),
    format: jsonFormat('context_servers'),
    entry: urlOnly,
    ...plain,
  },
  'gemini-cli': {
    configFile: (dirs) => join(dirs.home, '.gemini', 'settings.json'),
    format: jsonFormat('mcpServers'),
    entry: (workload) => (sse(workload) ? { url: workload.url } : { httpUrl: workload.url }),
    ...plain,
  },
  codex: { configFile: (dirs) => join(dirs.home, '.codex', 'config.toml'), format: tomlFormat('mcp_servers'), entry: urlOnly, supportsSkills: true, supportsPlugins: true },
  opencode: {
    configFile: (dirs) => join(dirs.xdgConfig, 'opencode', 'opencode.json'),
    format: jsonFormat('mcp'),
    entry: (workload) => ({ type: 'remote', url: workload.url, enabled: true }),
    ...plain,
  },
  kiro: { configFile: (dirs) => join(dirs.home, '.kiro', 'settings', 'mcp.json'), format: jsonFormat('mcpServers'), entry: urlOnly, ...plain },
  'lm-studio': { configFile: (dirs) => join(dirs.home, '.lmstudio', 'mcp.json'), format: jsonFormat('mcpServers'), entry: urlOnly, ...noSkills },
  'amp-cli': { configFile: (dirs) => join(dirs.xdgConfig, 'amp', 'settings.json'), format: jsonFormat('amp.mcpServers'), entry: urlOnly, ...plain },
  'copilot-cli': {
    configFile: (dirs) => join(dirs.home, '.copilot', 'mcp-config.json'),
    format: jsonFormat('mcpServers'),
    entry: (workload) => ({ ...httpOrSse(workload), tools: ['*'] }),
    ...plain,
  },
} satisfies Record<string, ClientSpec>;

export type ClientType = keyof typeof CLIENTS;
export const CLIENT_TYPES = Object.keys(CLIENTS) as ClientType[];

export const isClientType = (name: string): name is ClientType => Object.hasOwn(CLIENTS, name);

export interface ClientLocationOptions {
  home: string;
  platform: NodeJS.Platform;
  /** `$XDG_CONFIG_HOME` as set; a relative path is ignored, as XDG says. */
  xdgConfigHome?: string | undefined;
}

/** Windows is not supported: anything but macOS is laid out as Linux. */
export function clientDirs({ home, platform, xdgConfigHome }: ClientLocationOptions): ClientDirs {
  const dotConfig = join(home, '.config');
  const xdgConfig = xdgConfigHome?.startsWith('/') === true ? xdgConfigHome : dotConfig;
  const darwin = platform === 'darwin';
  return { home, xdgConfig, dotConfig, appData: darwin ? join(home, 'Library', 'Application Support') : xdgConfig, platform: darwin ? 'darwin' : 'linux' };
}

export interface ClientLocation {
  configFile: string;
  installedWhen: string[];
}

/** Where a client's configuration is on this machine: a pure function of the home and XDG directories. */
export function clientLocation(type: ClientType, options: ClientLocationOptions): ClientLocation {
  const dirs = clientDirs(options);
  const spec: ClientSpec = CLIENTS[type];
  const configFile = spec.configFile(dirs);
  return { configFile, installedWhen: spec.installedWhen?.(dirs) ?? [dirname(configFile)] };
}
