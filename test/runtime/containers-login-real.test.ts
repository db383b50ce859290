import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerRuntime } from '../../src/runtime/containers/runtime.js';
import { createRegistryCredentials } from '../../src/runtime/credentials/store.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { importBusyboxImage } from '../helpers/oci-rootfs.js';
import { startPodman, type PodmanService, type PodmanStart } from '../helpers/podman.js';

/*
 * A real Podman pulling from Debian's docker-registry behind htpasswd: the login the runtime found in
 * Docker's config.json reaches the engine as X-Registry-Auth. Where either cannot run, one test says why.
 */
const PASSWORD = 'engine:pass-word';
const local = await startLocalRegistry({ users: { alice: PASSWORD } });
const started: PodmanStart = local.registry === undefined ? { reason: local.reason } : await startPodman({ insecureRegistries: [local.registry.host] });

afterAll(async () => {
  await started.podman?.stop();
  await local.registry?.stop();
});

function loginTests(podman: PodmanService, registry: LocalRegistry): void {
  describe('a real Podman pulling an image from a registry that asks for a login', { timeout: 60_000 }, () => {
    const image = `${registry.host}/private/busybox:1`;
    const env = { DOCKER_HOST: podman.dockerHost };
    let dir: string;

    const runtimeWith = async (password: string | undefined) => {
      const file = join(dir, `${password ?? 'none'}.json`);
      const auths = password === undefined ? {} : { [registry.host]: { auth: Buffer.from(`alice:${password}`).toString('base64') } };
      await writeFile(file, JSON.stringify({ auths }));
      return createContainerRuntime({ env, runtimeId: 'login-test', credentials: createRegistryCredentials({ files: [file], env: {} }) });
    };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'toolyard-engine-login-'));
      const built = await importBusyboxImage(podman);
      await podman.cli(['push', '--quiet', '--tls-verify=false', '--creds', `alice:${PASSWORD}`, built, image]);
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('refuses the pull without a login or with a wrong one as a 400 that says to log in', async () => {
      for (const password of [undefined, 'wrong-password']) {
        const refused = await (await runtimeWith(password)).prepare(image, undefined).then(() => undefined, (error: unknown) => error as { status: number; message: string });
        expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('log in to the image') as string });
        expect(refused?.message).not.toContain('wrong-password');
      }
    });

    it('pulls with the stored login', async () => {
      expect(await (await runtimeWith(PASSWORD)).prepare(image, undefined)).toMatch(/image [0-9a-f]{64}|image sha256:/);
    });
  });
}

if (started.podman === undefined || local.registry === undefined) {
  const reason = started.reason ?? local.reason ?? '';
  it(`real engine with a registry login: not available here (${reason})`, () => {
    expect(reason).not.toBe('');
  });
} else {
  loginTests(started.podman, local.registry);
}
