import { describe, expect, it } from 'vitest';
import { endpointKeyOf, toolPrefixOf } from './validate.js';

describe('toolPrefixOf (PLATFORM-API Part 4 §7 item 1)', () => {
  it('lower-cases, turns each run outside [a-z0-9-] into one underscore and trims the edges', () => {
    expect(toolPrefixOf('GitHub Tools')).toBe('github_tools');
    expect(toolPrefixOf('  Jira / Confluence!! ')).toBe('jira_confluence');
    expect(toolPrefixOf('my-server_2')).toBe('my-server_2');
    expect(toolPrefixOf('Ünïcode Søk')).toBe('n_code_s_k');
    expect(toolPrefixOf('!!!')).toBe('');
  });

  it('keeps at most 32 characters and no underscore at the cut', () => {
    expect(toolPrefixOf('a'.repeat(40))).toBe('a'.repeat(32));
    expect(toolPrefixOf(`${'b'.repeat(31)} tail`)).toBe('b'.repeat(31));
  });
});

describe('endpointKeyOf', () => {
  it('compares scheme and host without case and drops the default port and the fragment, keeping the path as written', () => {
    expect(endpointKeyOf(new URL('HTTPS://MCP.Example.com:443/Mcp#x'))).toBe('https://mcp.example.com/Mcp');
    expect(endpointKeyOf(new URL('http://mcp.example.com:80/mcp'))).toBe('http://mcp.example.com/mcp');
    expect(endpointKeyOf(new URL('http://mcp.example.com:8080/mcp'))).toBe('http://mcp.example.com:8080/mcp');
  });
});
