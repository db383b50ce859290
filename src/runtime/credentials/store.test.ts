import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../artifacts/artifacts-testing.js';
import { registryAuthFiles } from './files.js';
import { createRegistryCredentials, engineAuthHeader } from './store.js';

const auth = (user: string, password: string): string => Buffer.from(`${user}:${password}`).toString('base64');

describe('registry logins read as docker login and podman login store them', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-credentials-'));
    // a credential helper as Docker runs it: the server on stdin, {Username, Secret} on stdout, exit 1 when it knows none
    const helper = [
      '#!/bin/sh',
      'read server',
      'case "$server" in',
      '  helped.example) echo \'{"ServerURL":"helped.example","Username":"robot","Secret":"from-helper"}\' ;;',
      '  token.example) echo \'{"ServerURL":"token.example","Username":"<token>","Secret":"refresh-me"}\' ;;',
      '  *) echo "credentials not found in native keychain"; exit 1 ;;',
      'esac',
      '',
    ].join('\n');
    await writeTree(join(dir, 'bin'), { 'docker-credential-fake': helper });
    await chmod(join(dir, 'bin', 'docker-credential-fake'), 0o755);
    env = { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` };
    await writeTree(dir, {
      'docker/config.json': JSON.stringify({
        auths: {
          'https://index.docker.io/v1/': { auth: auth('hubuser', 'hub:pass') },
          'registry.example': { auth: auth('docker', 'from-docker') },
          'https://legacy.example/v1/': { username: 'old', password: 'style' },
          'oauth.example': { auth: auth('someone', ''), identitytoken: 'id-token' },
        },
        credHelpers: { 'helped.example': 'fake', 'broken.example': 'missing-helper' },
      }),
      'run/containers/auth.json': JSON.stringify({
        auths: { 'registry.example/team': { auth: auth('team', 'from-podman-team') }, 'registry.example/team/one': { auth: auth('one', 'from-podman-one') } },
      }),
      'store/config.json': JSON.stringify({ auths: { 'token.example': {} }, credsStore: 'fake' }),
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('looks in REGISTRY_AUTH_FILE, podman’s auth.json files, then Docker’s config.json', () => {
    expect(registryAuthFiles({ REGISTRY_AUTH_FILE: '/a/auth.json', XDG_RUNTIME_DIR: '/run/user/1', DOCKER_CONFIG: '/d' }, '/home/u')).toEqual([
      '/a/auth.json',
      '/run/user/1/containers/auth.json',
      '/home/u/.config/containers/auth.json',
      '/d/config.json',
    ]);
    expect(registryAuthFiles({ XDG_CONFIG_HOME: '/cfg' }, '/home/u')).toEqual(['/cfg/containers/auth.json', '/home/u/.docker/config.json']);
  });

  it('decodes auth (a password may hold colons), username/password, identity tokens, and Docker Hub under its v1 URL', async () => {
    const credentials = createRegistryCredentials({ files: [join(dir, 'docker', 'config.json')], env });
    expect(await credentials.find('registry.example')).toEqual({ username: 'docker', password: 'from-docker' });
    expect(await credentials.find('docker.io', 'library/alpine')).toEqual({ username: 'hubuser', password: 'hub:pass' });
    expect(await credentials.find('registry-1.docker.io')).toEqual({ username: 'hubuser', password: 'hub:pass' });
    expect(await credentials.find('legacy.example')).toEqual({ username: 'old', password: 'style' });
    expect(await credentials.find('oauth.example')).toEqual({ identityToken: 'id-token' });
    expect(await credentials.find('unknown.example')).toBeUndefined();
  });

  it('prefers the first file with a login, and the most specific repository entry in it', async () => {
    const credentials = createRegistryCredentials({ files: [join(dir, 'missing.json'), join(dir, 'run', 'containers', 'auth.json'), join(dir, 'docker', 'config.json')], env });
    expect(await credentials.find('registry.example', 'team/one')).toEqual({ username: 'one', password: 'from-podman-one' });
    expect(await credentials.find('registry.example', 'team/two')).toEqual({ username: 'team', password: 'from-podman-team' });
    expect(await credentials.find('registry.example', 'other/x')).toEqual({ username: 'docker', password: 'from-docker' });
  });

  it('asks credential helpers (credHelpers, then credsStore), with nothing when the helper fails or is missing', async () => {
    const credentials = createRegistryCredentials({ files: [join(dir, 'docker', 'config.json'), join(dir, 'store', 'config.json')], env });
    expect(await credentials.find('helped.example')).toEqual({ username: 'robot', password: 'from-helper' });
    expect(await credentials.find('token.example')).toEqual({ identityToken: 'refresh-me' });
    expect(await credentials.find('broken.example')).toBeUndefined();
    expect(await credentials.find('nothing.example')).toBeUndefined();
  });

  it('hands the engine its X-Registry-Auth as padded base64url JSON', () => {
    const decode = (value: string): unknown => JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    expect(decode(engineAuthHeader({ username: 'u', password: 'p?>' }, 'registry.example'))).toEqual({ username: 'u', password: 'p?>', serveraddress: 'registry.example' });
    expect(decode(engineAuthHeader({ identityToken: 't' }, 'https://index.docker.io/v1/'))).toEqual({ identitytoken: 't', serveraddress: 'https://index.docker.io/v1/' });
    // Go's base64.URLEncoding, which both engines decode with, needs the padding
    for (const password of ['p', 'pw', 'pwd']) expect(engineAuthHeader({ username: 'u', password }, 'r').length % 4).toBe(0);
  });
});
