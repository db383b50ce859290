import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { EnterpriseStatus } from '../../src/runtime/enterprise/schemas.js';
import { runCli } from '../helpers/cli.js';
import { signingKeys, startPlatformFront, type PlatformFront } from './enterprise-platform.js';
import { runtimeEnv } from './fixtures.js';

const TOKEN = 'platform-gateway-token-7f3a9c';

describe('toolyard runtime enterprise set, status, unset', () => {
  let front: PlatformFront;
  let env: Record<string, string>;
  let dir: string;
  let tokenFile: string;
  const cli = (...args: string[]) => runCli(args, env);

  beforeAll(async () => {
    front = await startPlatformFront({ clock: systemClock, keys: await signingKeys('k1') });
    await front.putDirectives({ config: { non_registry_servers: { enforcement: 'enforced', value: false } } });
    front.token = TOKEN;
    ({ env, dir } = await runtimeEnv());
    tokenFile = join(dir, 'platform-token');
    await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await front.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a platform that wants a token when none is given, and keeps nothing', async () => {
    const refused = await cli('runtime', 'enterprise', 'set', `${front.url}/v1/configuration`);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`url: cannot use ${front.url}/v1/configuration: ${front.url}/.well-known/toolyard-configuration answered 401`);
    expect((await cli('runtime', 'enterprise', 'status')).output).toContain('no enterprise configuration is set');
  });

  it('sets the configuration URL with a token file, prints what applies, and never prints the token', async () => {
    const set = await cli('runtime', 'enterprise', 'set', `${front.url}/v1/configuration`, '--token-file', tokenFile);
    expect(set.code, set.output).toBe(0);
    expect(set.output).toMatch(/^mode {12}current: valid until /m);
    expect(set.output).toMatch(/enforced {2}non_registry_servers = false/);
    expect(set.output).toContain(`token file      ${tokenFile}`);
    expect(set.output).toContain('signed by kid   k1');
    expect(front.seen.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const json = await cli('runtime', 'enterprise', 'status', '--format', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.output)).toMatchObject<Partial<EnterpriseStatus>>({ configured: true, mode: 'current', token_file: tokenFile, config_url: `${front.url}/v1/configuration` });
    for (const output of [set.output, json.output]) expect(output).not.toContain(TOKEN);
  });

  it('refuses to run a server that is not from the registry catalog, naming the directive', async () => {
    const run = await cli('run', 'http://127.0.0.1:9/mcp', '--name', 'adhoc');
    expect(run.code).toBe(1);
    expect(run.output).toContain('directive "non_registry_servers"');
  });

  it('refreshes on demand and unsets', async () => {
    const refreshed = await cli('runtime', 'enterprise', 'refresh');
    expect(refreshed.output).toMatch(/^last refresh {4}\S+ not_modified$/m);
    const unset = await cli('runtime', 'enterprise', 'unset');
    expect(unset.code).toBe(0);
    expect((await cli('runtime', 'enterprise', 'status')).output).toContain('no enterprise configuration is set');
  });
});
