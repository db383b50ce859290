import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('toolyard registry: configuration errors a person can act on', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function check(yaml: string, env: Record<string, string> = {}) {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, yaml);
    return runCli(['registry', 'check-config', '--config', file], env);
  }

  it('names the key of a rule that is broken', async () => {
    const { code, output } = await check(
      [
        'sources:',
        '  - { name: one, managed: {} }',
        '  - { name: two, file: { path: ./c.json } }',
        '  - { name: three, git: { repository: https://example.org/r.git, branch: main, tag: v1 } }',
        'auth: { mode: anonymous }',
      ].join('\n'),
    );
    expect(code).toBe(2);
    expect(output).toContain('sources[2].git.branch: branch, tag and commit are mutually exclusive');
  });

  it('names unknown keys, wrong types and bad durations', async () => {
    const unknown = await check('server: { adress: "x" }\nauth: { mode: anonymous }\n');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/server: .*adress|server\.adress/);
    const interval = await check('sources:\n  - { name: a, file: { path: x.json }, syncPolicy: { interval: 5 minutes } }\nauth: { mode: anonymous }\n');
    expect(interval.output).toContain('sources[0].syncPolicy.interval: "5 minutes" is not a duration');
    const kind = await check('sources:\n  - { name: a, kubernetes: { namespace: x } }\nauth: { mode: anonymous }\n');
    expect(kind.output).toMatch(/sources\[0\]\.kubernetes(\.namespace|: .*namespace)/);
    const inline = await check('sources:\n  - { name: a, file: { data: { servers: [] } } }\nauth: { mode: anonymous }\n');
    expect(inline.output).toContain('sources[0].file.data: inline catalogs are accepted through the admin API only');
    const registry = await check('registries:\n  - { name: default, sources: [missing] }\nauth: { mode: anonymous }\n');
    expect(registry.output).toContain('registries[0].sources[0]: no source named "missing"');
  });

  it('reports YAML syntax errors with the line', async () => {
    const { code, output } = await check('sources:\n  - name: a\n   file: [\n');
    expect(code).toBe(2);
    expect(output).toMatch(/line \d+.*not valid YAML|not valid YAML/);
  });

  it('lets environment variables override keys, and rejects those that name none', async () => {
    const good = await check('auth: { mode: anonymous }\n', { TOOLYARD_REGISTRY_SERVER_ADDRESS: '0.0.0.0:9000' });
    expect(good.code).toBe(0);
    const bad = await check('auth: { mode: anonymous }\n', { TOOLYARD_REGISTRY_SERVR_ADDRESS: 'x' });
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('TOOLYARD_REGISTRY_SERVR_ADDRESS: does not name a configuration key');
  });

  it('accepts the example configuration', async () => {
    const { code, output } = await runCli(['registry', 'check-config', '--config', new URL('../../examples/registry.yaml', import.meta.url).pathname]);
    expect(output).toContain('valid');
    expect(code).toBe(0);
  });
});
