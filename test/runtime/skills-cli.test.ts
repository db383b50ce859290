import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlugin, writeSkill } from '../../src/runtime/artifacts/artifacts-testing.js';
import { runCli } from '../helpers/cli.js';
import { runtimeEnv } from './fixtures.js';

describe('toolyard skill and toolyard plugin', () => {
  let env: Record<string, string>;
  let dir: string;
  let home: string;
  const cli = (...args: string[]) => runCli(args, env);

  beforeAll(async () => {
    const made = await runtimeEnv();
    dir = made.dir;
    home = join(dir, 'home');
    // client folders are written under HOME: a home of the test's own, never the real one
    env = { ...made.env, HOME: home };
    await mkdir(home);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validates and builds a skill folder', async () => {
    const source = await writeSkill(join(dir, 'src'), 'code-review', { version: '1.0.0' });
    expect(await cli('skill', 'validate', source)).toEqual({ code: 0, output: 'valid\n' });
    const bad = await writeSkill(join(dir, 'src'), 'Bad_Name');
    const invalid = await cli('skill', 'validate', bad);
    expect(invalid.code).toBe(1);
    expect(invalid.output).toBe('error: name "Bad_Name" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen\nnot valid\n');
    expect(await cli('skill', 'build', source)).toEqual({ code: 0, output: 'code-review:1.0.0\n' });
  });

  it('installs for the named clients, lists and shows it', async () => {
    const installed = await cli('skill', 'install', 'code-review:1.0.0', '--client', 'claude-code', '--client', 'cursor', '--expect-version', '1.0.0');
    expect(installed.output).toMatch(/^installed code-review sha256:[0-9a-f]{64} for claude-code, cursor\n$/);
    expect(await readFile(join(home, '.cursor/skills/code-review/SKILL.md'), 'utf8')).toContain('name: code-review');
    const listed = JSON.parse((await cli('skill', 'list', '--format', 'json')).output) as { metadata: { name: string }; clients: string[] }[];
    expect(listed.map((skill) => [skill.metadata.name, skill.clients])).toEqual([['code-review', ['claude-code', 'cursor']]]);
    expect(JSON.parse((await cli('skill', 'info', 'code-review')).output)).toMatchObject({ installed_skill: { scope: 'user' }, unsigned: true, provenance: null });
  });

  it('keeps a project in step with its lock file', async () => {
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    await mkdir(first);
    await mkdir(second);
    expect((await cli('skill', 'install', 'code-review:1.0.0', '--project-root', first, '--client', 'codex')).code).toBe(0);
    await copyFile(join(first, 'toolyard.lock.yaml'), join(second, 'toolyard.lock.yaml'));
    expect(await cli('skill', 'sync', '--project-root', second, '--check')).toEqual({ code: 1, output: 'missing code-review\n' });
    expect(await cli('skill', 'sync', '--project-root', second)).toEqual({ code: 0, output: 'installed code-review\nmissing code-review\n' });
    expect(await readFile(join(second, '.agents/skills/code-review/SKILL.md'), 'utf8')).toBe(await readFile(join(first, '.agents/skills/code-review/SKILL.md'), 'utf8'));
  });

  it('checks a project for upgrades and uninstalls', async () => {
    expect(await cli('skill', 'upgrade', '--project-root', join(dir, 'second'), '--fail-on-changes')).toEqual({ code: 0, output: 'code-review up-to-date\n' });
    expect(await cli('skill', 'rm', 'code-review')).toEqual({ code: 0, output: 'removed code-review\n' });
  });

  it('installs a plugin for Codex and says which parts it cannot load', async () => {
    const source = await writePlugin(join(dir, 'src'), 'review-kit');
    expect((await cli('plugin', 'build', source)).output).toBe('review-kit:1.0.0\n');
    expect((await cli('plugin', 'install', 'review-kit:1.0.0', '--client', 'codex')).code).toBe(0);
    expect(JSON.parse((await cli('plugin', 'info', 'review-kit')).output)).toMatchObject({ unmaterialized_components: { codex: ['agents', 'commands'] } });
    const missing = await cli('plugin', 'info', 'nothing');
    expect(missing).toEqual({ code: 1, output: 'toolyard: plugin nothing is not installed in user scope\n' });
  });

  it('installs a plugin by name from a marketplace file', async () => {
    const market = join(dir, 'market');
    await writePlugin(join(market, 'plugins'), 'lint-kit');
    await mkdir(join(market, '.claude-plugin'));
    await writeFile(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'acme', owner: { name: 'Acme' }, plugins: [{ name: 'lint-kit', source: './plugins/lint-kit' }] }));
    const installed = await cli('plugin', 'install', 'lint-kit', '--marketplace', join(market, '.claude-plugin', 'marketplace.json'), '--client', 'claude-code');
    expect(installed.output).toMatch(/^installed lint-kit sha256:[0-9a-f]{64} for claude-code\n$/);
    expect(JSON.parse((await cli('plugin', 'info', 'lint-kit')).output)).toMatchObject({ installed_plugin: { marketplace: join(market, '.claude-plugin', 'marketplace.json') } });
    const unknown = await cli('plugin', 'install', 'no-such-kit', '--marketplace', join(market, '.claude-plugin', 'marketplace.json'), '--client', 'claude-code');
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('no-such-kit');
  });
});
