import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../core/errors.js';
import type { ConfigFormat, Entry } from './format.js';
import { jsonFormat } from './json.js';
import { tomlFormat } from './toml.js';
import { yamlFormat } from './yaml.js';

const add = (format: ConfigFormat, text: string, name: string, entry: Entry = { url: 'http://127.0.0.1:1/mcp' }) =>
  format.apply(text, { set: new Map([[name, entry]]), remove: [], dropEmptyContainer: false });
const remove = (format: ConfigFormat, text: string, name: string) => format.apply(text, { set: new Map(), remove: [name], dropEmptyContainer: false });

/** Adding then removing an entry gives back the exact original text. */
function roundTrip(format: ConfigFormat, original: string, name = 'toolyard'): string {
  const added = add(format, original, name);
  expect(format.read(added).entries.get(name)).toEqual({ url: 'http://127.0.0.1:1/mcp' });
  expect(remove(format, added, name)).toBe(original);
  return added;
}

describe('JSON edits', () => {
  const json = jsonFormat('mcpServers');

  it('keeps a one-line object on one line', () => {
    expect(roundTrip(json, '{"mcpServers": {"a": {"url": "x"}}}')).toBe('{"mcpServers": {"a": {"url": "x"}, "toolyard": {"url":"http://127.0.0.1:1/mcp"}}}');
  });

  it('puts an entry after the comments of an otherwise empty object', () => {
    expect(roundTrip(json, '{\n  "mcpServers": {\n    // none yet\n  }\n}\n')).toBe(
      '{\n  "mcpServers": {\n    // none yet\n    "toolyard": {\n      "url": "http://127.0.0.1:1/mcp"\n    }\n  }\n}\n',
    );
  });

  it('keeps Windows line endings', () => {
    const added = roundTrip(json, '{\r\n  "mcpServers": {\r\n    "a": {}\r\n  }\r\n}\r\n');
    expect(added.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('removes the first entry without disturbing the next', () => {
    const text = '{\n  "mcpServers": {\n    "toolyard": {"url": "x"},\n    "mine": {"url": "y"}\n  }\n}\n';
    expect(remove(json, text, 'toolyard')).toBe('{\n  "mcpServers": {\n    "mine": {"url": "y"}\n  }\n}\n');
  });

  it('refuses files it cannot edit safely', () => {
    expect(() => json.read('{"mcpServers": []}')).toThrow(InvalidInputError);
    expect(() => json.read('[1, 2]')).toThrow('not a JSON object');
    expect(() => json.read('{"mcpServers": {')).toThrow('not valid JSON');
  });
});

describe('YAML edits', () => {
  const goose = yamlFormat({ key: 'extensions', shape: 'map' });
  const continueList = yamlFormat({ key: 'mcpServers', shape: 'list' });

  it('adds to a sequence that is not indented under its key, in the same style', () => {
    const original = 'mcpServers:\n- name: memory\n  command: npx\n';
    const added = add(continueList, original, 'toolyard', { name: 'toolyard', url: 'u' });
    expect(added).toBe('mcpServers:\n- name: memory\n  command: npx\n- name: toolyard\n  url: u\n');
    expect(remove(continueList, added, 'toolyard')).toBe(original);
  });

  it('falls back to the document model for flow and empty collections, keeping the data and comments', () => {
    const flow = add(goose, '# mine\nextensions: {}\nGOOSE_MODE: auto\n', 'toolyard', { name: 'toolyard', uri: 'u' });
    expect(goose.read(flow).entries.get('toolyard')).toEqual({ name: 'toolyard', uri: 'u' });
    expect(flow).toContain('# mine\n');
    expect(flow).toContain('GOOSE_MODE: auto');
    const empty = add(goose, 'extensions:\nGOOSE_MODE: auto\n', 'toolyard', { name: 'toolyard' });
    expect(goose.read(empty).entries.get('toolyard')).toEqual({ name: 'toolyard' });
  });

  it('refuses invalid YAML and a servers key of the wrong kind', () => {
    expect(() => goose.read('extensions: [\n')).toThrow('not valid YAML');
    expect(() => continueList.read('mcpServers:\n  memory: {}\n')).toThrow('"mcpServers" is not a list');
  });
});

describe('TOML edits', () => {
  const toml = tomlFormat('mcp_servers');

  it('quotes a name that is not a bare key', () => {
    expect(roundTrip(toml, 'model = "x"\n', 'my.server')).toBe('model = "x"\n\n[mcp_servers."my.server"]\nurl = "http://127.0.0.1:1/mcp"\n');
  });

  it('removes the sub-tables of a server along with it', () => {
    const text = 'a = 1\n\n[mcp_servers.toolyard]\nurl = "x"\n\n[mcp_servers.toolyard.env]\nK = "v"\n\n# next\n[other]\nb = 2\n';
    expect(remove(toml, text, 'toolyard')).toBe('a = 1\n\n# next\n[other]\nb = 2\n');
  });

  it('updates a server in place, leaving the tables around it as they are', () => {
    const text = '[mcp_servers.toolyard]\nurl = "x"\n# about other\n[other]\nb = 2\n';
    expect(add(toml, text, 'toolyard')).toBe('[mcp_servers.toolyard]\nurl = "http://127.0.0.1:1/mcp"\n# about other\n[other]\nb = 2\n');
  });

  it('refuses to edit a server that is not written as its own table', () => {
    expect(() => add(toml, '[mcp_servers]\ntoolyard = { url = "x" }\n', 'toolyard')).toThrow(InvalidInputError);
    expect(() => toml.read('mcp_servers = 3\n')).toThrow('"mcp_servers" is not a table');
    expect(() => toml.read('a = \n')).toThrow('not valid TOML');
  });
});
