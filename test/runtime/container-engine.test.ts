import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDockerEngine, type FakeDockerEngine } from '../helpers/fake-docker-engine.js';
import { engineCandidates } from '../../src/runtime/containers/endpoint.js';
import { createEngineClient, pullParameters, type ContainerCreateBody, type EngineClient } from '../../src/runtime/containers/engine.js';
import { createFrameDecoder, encodeFrame } from '../../src/runtime/containers/engine-streams.js';
import { createContainerRuntime, imageRegistry } from '../../src/runtime/containers/runtime.js';
import { createRegistryCredentials } from '../../src/runtime/credentials/store.js';

/** Echoes each stdin line back on stdout and says goodbye on stderr when stdin ends. */
const ECHO = [process.execPath, '-e', "process.stdin.on('data', (c) => process.stdout.write('echo:' + c)); process.stdin.on('end', () => { process.stderr.write('bye\\n'); process.exit(3); });"];

const body = (image: string, labels: Record<string, string> = {}): ContainerCreateBody => ({
  Image: image,
  Env: ['GREETING=hello'],
  Labels: labels,
  AttachStdin: true,
  AttachStdout: true,
  AttachStderr: true,
  OpenStdin: true,
  StdinOnce: true,
  Tty: false,
  HostConfig: { Binds: [], Privileged: false, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] },
});

describe('the Docker Engine API client', () => {
  let dir: string;
  let fake: FakeDockerEngine;
  let engine: EngineClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-engine-'));
    fake = await startFakeDockerEngine({
      socketPath: join(dir, 'docker.sock'),
      registry: {
        'registry.example/echo:1': { entrypoint: ECHO },
        'registry.example/broken:1': { entrypoint: ECHO, pullError: 'unexpected EOF' },
        // Podman's answer to a tag the registry does not have: a 200 whose stream ends with the error
        'registry.example/gone:1': { entrypoint: ECHO, pullError: 'initializing source docker://registry.example/gone:1: reading manifest 1 in registry.example/gone: manifest unknown: manifest unknown' },
        'registry.example/private:1': { entrypoint: ECHO, pullError: 'initializing source docker://registry.example/private:1: unauthorized: authentication required' },
        'registry.example/team/secret:1': { entrypoint: ECHO, login: { username: 'alice', password: 'pa:ss', serveraddress: 'registry.example' } },
      },
      local: { 'localhost/acme/built:1': { entrypoint: ECHO } },
    });
    engine = createEngineClient({ socketPath: fake.socketPath });
  });
  afterAll(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the engine from DOCKER_HOST (unix only), else Docker then Podman sockets', () => {
    expect(engineCandidates({ DOCKER_HOST: 'unix:///tmp/e.sock' })).toEqual([{ socketPath: '/tmp/e.sock', source: 'DOCKER_HOST' }]);
    expect(() => engineCandidates({ DOCKER_HOST: 'tcp://user:pw@10.0.0.1:2375' })).toThrow(/only unix:\/\/ sockets are supported/);
    expect(() => engineCandidates({ DOCKER_HOST: 'tcp://user:pw@10.0.0.1:2375' })).not.toThrow(/pw/);
    expect(engineCandidates({ XDG_RUNTIME_DIR: '/run/user/1000' }).map((candidate) => candidate.socketPath)).toEqual([
      '/var/run/docker.sock',
      '/run/user/1000/podman/podman.sock',
      '/run/podman/podman.sock',
    ]);
  });

  it('pings and reads the version under the API version prefix', async () => {
    await engine.ping();
    expect((await engine.version()).ApiVersion).toBe('1.41');
    expect(fake.requests.every((request) => request.version === '1.41')).toBe(true);
  });

  it('pulls one tag (never every tag), reporting the steps but not the byte counts', async () => {
    expect(pullParameters('registry.example:5000/echo')).toEqual({ fromImage: 'registry.example:5000/echo', tag: 'latest' });
    expect(pullParameters('echo@sha256:abc')).toEqual({ fromImage: 'echo', tag: 'sha256:abc' });
    const lines: string[] = [];
    await engine.pull('registry.example/echo:1', (line) => lines.push(line));
    expect(lines[0]).toBe('1: Pulling from registry.example/echo');
    expect(lines.some((line) => line.includes('Downloading'))).toBe(false);
    expect(lines.at(-1)).toBe('Status: Downloaded newer image for registry.example/echo:1');
    expect((await engine.inspectImage('registry.example/echo:1'))?.Id).toMatch(/^sha256:/);
    expect(await engine.inspectImage('registry.example/absent:1')).toBeUndefined();
  });

  it('maps engine errors: an unknown image is a 404 (as a status or inside the pull stream), another error in the stream a 503, a name in use a 409', async () => {
    await expect(engine.pull('registry.example/absent:1', () => undefined)).rejects.toMatchObject({ status: 404, message: expect.stringContaining('pull access denied') as unknown });
    await expect(engine.pull('registry.example/gone:1', () => undefined)).rejects.toMatchObject({ status: 404, message: expect.stringContaining('manifest unknown') as unknown });
    await expect(engine.pull('registry.example/private:1', () => undefined)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('podman login') as unknown });
    await expect(engine.pull('registry.example/broken:1', () => undefined)).rejects.toMatchObject({ status: 503, message: expect.stringContaining('unexpected EOF') as unknown });
    await expect(engine.createContainer('x', body('registry.example/absent:1'))).rejects.toMatchObject({ status: 404, message: expect.stringContaining('No such image') as unknown });
    await engine.createContainer('taken', body('registry.example/echo:1'));
    await expect(engine.createContainer('taken', body('registry.example/echo:1'))).rejects.toMatchObject({ status: 409 });
    const missing = createEngineClient({ socketPath: join(dir, 'nothing.sock') });
    await expect(missing.ping()).rejects.toThrow(/no container engine answers on .*nothing\.sock.*start Docker or Podman/);
  });

  it('attaches to the stdio of a container through the stream framing, waits for its exit, lists it by label and removes it', async () => {
    const id = await engine.createContainer('echo', body('registry.example/echo:1', { 'dev.toolyard.workload': 'echo' }));
    const output: string[] = [];
    let ended = false;
    const attached = await engine.attach(id, (kind, payload) => output.push(`${kind}:${payload.toString()}`), () => (ended = true));
    const { exited } = await engine.wait(id);
    await engine.start(id);
    attached.stdin.write('ping\n');
    await expect.poll(() => output).toContain('stdout:echo:ping\n');
    attached.stdin.end();
    expect(await exited).toBe(3);
    await expect.poll(() => output).toContain('stderr:bye\n');
    await expect.poll(() => ended).toBe(true);
    expect((await engine.list({ 'dev.toolyard.workload': 'echo' })).map((container) => container.Id)).toEqual([id]);
    expect(await engine.list({ 'dev.toolyard.workload': 'other' })).toEqual([]);
    await engine.remove(id);
    await engine.remove(id);
    expect(await engine.list({ 'dev.toolyard.workload': 'echo' })).toEqual([]);
  });

  it('stops a running container (304 once it is stopped) and refuses to attach to an unknown one', async () => {
    const id = await engine.createContainer('stopper', body('registry.example/echo:1'));
    await engine.start(id);
    await engine.start(id);
    await engine.stop(id, 1);
    await engine.stop(id, 1);
    expect(fake.containers().find((container) => container.Id === id)?.state).toBe('exited');
    await expect(engine.attach('nope', () => undefined, () => undefined)).rejects.toMatchObject({ status: 404 });
  });

  it('uses an image built or imported on the engine (Podman names it localhost/...) without asking a registry for it', async () => {
    const runtime = createContainerRuntime({ env: { DOCKER_HOST: `unix://${fake.socketPath}` }, runtimeId: 'test' });
    const pullsBefore = fake.requests.filter((request) => request.path === '/images/create').length;
    expect(await runtime.prepare('localhost/acme/built:1', undefined)).toMatch(/nothing to pull\nimage sha256:/);
    expect(fake.requests.filter((request) => request.path === '/images/create')).toHaveLength(pullsBefore);
  });

  it('pulls a private image with the login of docker’s config.json in X-Registry-Auth, and says to log in without one', async () => {
    expect(imageRegistry('alpine')).toEqual({ host: 'docker.io', repository: 'library/alpine' });
    expect(imageRegistry('acme/x:1')).toEqual({ host: 'docker.io', repository: 'acme/x' });
    expect(imageRegistry('localhost:5000/acme/x@sha256:abc')).toEqual({ host: 'localhost:5000', repository: 'acme/x' });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ auths: { 'registry.example': { auth: Buffer.from('alice:pa:ss').toString('base64') } } }));
    const env = { DOCKER_HOST: `unix://${fake.socketPath}` };
    const credentials = createRegistryCredentials({ files: [join(dir, 'config.json')], env: {} });
    const runtime = createContainerRuntime({ env, runtimeId: 'test', credentials });
    expect(await runtime.prepare('registry.example/team/secret:1', undefined)).toMatch(/Pull complete/);
    expect(fake.requests.filter((request) => request.path === '/images/create').at(-1)?.registryAuth).toEqual({ username: 'alice', password: 'pa:ss', serveraddress: 'registry.example' });
    fake.local.delete('registry.example/team/secret:1');
    const anonymous = createContainerRuntime({ env, runtimeId: 'test' });
    await expect(anonymous.prepare('registry.example/team/secret:1', undefined)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('log in to the image') as string });
    expect(fake.requests.filter((request) => request.path === '/images/create').at(-1)?.registryAuth).toBeUndefined();
  });

  it('splits frames that arrive in pieces or several to a chunk', () => {
    const frames: string[] = [];
    const decode = createFrameDecoder((kind, payload) => frames.push(`${kind}:${payload.toString()}`));
    const both = Buffer.concat([encodeFrame('stdout', Buffer.from('hello')), encodeFrame('stderr', Buffer.from('oops'))]);
    decode(both.subarray(0, 3));
    decode(both.subarray(3, 15));
    decode(both.subarray(15));
    expect(frames).toEqual(['stdout:hello', 'stderr:oops']);
  });
});
