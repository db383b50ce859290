import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, pointerToKey } from './load.js';

const schema = Type.Object(
  {
    server: Type.Object({ address: Type.String({ default: '127.0.0.1:8080' }) }, { default: {}, additionalProperties: false }),
    database: Type.Object({ dataDir: Type.Optional(Type.String()), url: Type.Optional(Type.String()) }, { default: {}, additionalProperties: false }),
    items: Type.Array(Type.Object({ name: Type.String(), size: Type.Optional(Type.Integer()) }, { additionalProperties: false }), { default: [] }),
  },
  { additionalProperties: false },
);

function load(text: string, env: Record<string, string> = {}) {
  return loadConfig({ schema, text, envPrefix: 'APP_', env });
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults to an empty document', () => {
    expect(load('')).toEqual({ server: { address: '127.0.0.1:8080' }, database: {}, items: [] });
  });

  it('names the key of a wrong value, with array indexes', () => {
    const problems = problemsOf(() => load('items:\n  - name: a\n  - name: b\n    size: big\n'));
    expect(problems[0]).toMatch(/^items\[1\]\.size: /);
  });

  it('rejects unknown keys by name', () => {
    const problems = problemsOf(() => load('server:\n  adress: x\n'));
    expect(problems.join('\n')).toContain('server');
  });

  it('reports YAML syntax errors with a line', () => {
    expect(problemsOf(() => load('server: {\n'))[0]).toMatch(/not valid YAML/);
  });

  it('lets env variables override camelCase keys and array items', () => {
    const config = load('items:\n  - name: a\n', {
      APP_DATABASE_DATA_DIR: '/tmp/d',
      APP_DATABASE_URL: 'postgres://x',
      APP_ITEMS_0_SIZE: '3',
      OTHER: 'ignored',
    });
    expect(config.database).toEqual({ dataDir: '/tmp/d', url: 'postgres://x' });
    expect(config.items[0]).toEqual({ name: 'a', size: 3 });
  });

  it('refuses an env variable that names no key', () => {
    expect(problemsOf(() => load('', { APP_DATABSE_URL: 'x' }))[0]).toBe('APP_DATABSE_URL: does not name a configuration key');
  });

  it('converts JSON pointers to key paths', () => {
    expect(pointerToKey('/sources/2/git/branch')).toBe('sources[2].git.branch');
    expect(pointerToKey('')).toBe('');
  });
});
