import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES, CLIENTS, clientLocation, isClientType } from './catalog.js';

const home = '/home/ada';
const mac = '/Users/ada';
const support = `${mac}/Library/Application Support`;

describe('client locations', () => {
  const expected = {
    'claude-code': [`${home}/.claude.json`, `${mac}/.claude.json`],
    cursor: [`${home}/.cursor/mcp.json`, `${mac}/.cursor/mcp.json`],
    vscode: [`${home}/.config/Code/User/mcp.json`, `${support}/Code/User/mcp.json`],
    'vscode-insider': [`${home}/.config/Code - Insiders/User/mcp.json`, `${support}/Code - Insiders/User/mcp.json`],
    cline: [
      `${home}/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
      `${support}/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
    ],
    windsurf: [`${home}/.codeium/windsurf/mcp_config.json`, `${mac}/.codeium/windsurf/mcp_config.json`],
    goose: [`${home}/.config/goose/config.yaml`, `${mac}/.config/goose/config.yaml`],
    continue: [`${home}/.continue/config.yaml`, `${mac}/.continue/config.yaml`],
    zed: [`${home}/.config/zed/settings.json`, `${mac}/.config/zed/settings.json`],
    'gemini-cli': [`${home}/.gemini/settings.json`, `${mac}/.gemini/settings.json`],
    codex: [`${home}/.codex/config.toml`, `${mac}/.codex/config.toml`],
    opencode: [`${home}/.config/opencode/opencode.json`, `${mac}/.config/opencode/opencode.json`],
    kiro: [`${home}/.kiro/settings/mcp.json`, `${mac}/.kiro/settings/mcp.json`],
    'lm-studio': [`${home}/.lmstudio/mcp.json`, `${mac}/.lmstudio/mcp.json`],
    'amp-cli': [`${home}/.config/amp/settings.json`, `${mac}/.config/amp/settings.json`],
    'copilot-cli': [`${home}/.copilot/mcp-config.json`, `${mac}/.copilot/mcp-config.json`],
  };

  it('covers every client type, and only those', () => {
    expect(Object.keys(expected).sort()).toEqual([...CLIENT_TYPES].sort());
    expect(isClientType('cursor')).toBe(true);
    expect(isClientType('toString')).toBe(false);
  });

  it.each(CLIENT_TYPES)('%s: resolves the documented file on Linux and macOS', (type) => {
    const [linux, darwin] = expected[type];
    expect(clientLocation(type, { home, platform: 'linux' }).configFile).toBe(linux);
    expect(clientLocation(type, { home: mac, platform: 'darwin' }).configFile).toBe(darwin);
  });

  it('follows XDG_CONFIG_HOME on Linux for the tools that do, and ignores a relative one', () => {
    const xdg = { home, platform: 'linux' as const, xdgConfigHome: '/xdg' };
    expect(clientLocation('vscode', xdg).configFile).toBe('/xdg/Code/User/mcp.json');
    expect(clientLocation('goose', xdg).configFile).toBe('/xdg/goose/config.yaml');
    expect(clientLocation('zed', xdg).configFile).toBe('/xdg/zed/settings.json');
    expect(clientLocation('cursor', xdg).configFile).toBe(`${home}/.cursor/mcp.json`);
    expect(clientLocation('goose', { ...xdg, xdgConfigHome: 'relative' }).configFile).toBe(`${home}/.config/goose/config.yaml`);
    // macOS keeps Application Support for Electron apps and ~/.config for Zed, whatever XDG says
    expect(clientLocation('vscode', { home: mac, platform: 'darwin', xdgConfigHome: '/xdg' }).configFile).toBe(`${support}/Code/User/mcp.json`);
    expect(clientLocation('zed', { home: mac, platform: 'darwin', xdgConfigHome: '/xdg' }).configFile).toBe(`${mac}/.config/zed/settings.json`);
  });

  it('finds an installed client by its directory, and Claude Code by ~/.claude.json or ~/.claude', () => {
    expect(clientLocation('claude-code', { home, platform: 'linux' }).installedWhen).toEqual([`${home}/.claude.json`, `${home}/.claude`]);
    expect(clientLocation('cursor', { home, platform: 'linux' }).installedWhen).toEqual([`${home}/.cursor`]);
    expect(clientLocation('cline', { home, platform: 'linux' }).installedWhen).toEqual([`${home}/.config/Code/User/globalStorage/saoudrizwan.claude-dev`]);
  });

  it('writes the entry shape and transport label each client documents', () => {
    const http = { name: 'srv', url: 'http://127.0.0.1:1/mcp', transport: 'streamable-http' as const };
    const sse = { name: 'srv', url: 'http://127.0.0.1:1/sse', transport: 'sse' as const };
    expect(CLIENTS['claude-code'].entry(http)).toEqual({ type: 'http', url: http.url });
    expect(CLIENTS['claude-code'].entry(sse)).toEqual({ type: 'sse', url: sse.url });
    expect(CLIENTS['gemini-cli'].entry(http)).toEqual({ httpUrl: http.url });
    expect(CLIENTS['gemini-cli'].entry(sse)).toEqual({ url: sse.url });
    expect(CLIENTS.goose.entry(http)).toMatchObject({ type: 'streamable_http', uri: http.url, enabled: true });
    expect(CLIENTS.continue.entry(http)).toMatchObject({ type: 'streamable-http' });
    expect(CLIENTS.cline.entry(http)).toMatchObject({ type: 'streamableHttp', disabled: false });
    expect(CLIENTS.windsurf.entry(sse)).toEqual({ serverUrl: sse.url });
  });
});
