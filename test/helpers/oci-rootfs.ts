import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { PodmanService } from './podman.js';

const run = promisify(execFile);
export const BUSYBOX = '/bin/busybox';

/** Copies host files into a root file system at the same paths (links followed: the copy is the file itself). */
async function copyInto(root: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    await mkdir(join(root, dirname(path)), { recursive: true });
    await copyFile(path, join(root, path));
  }
}

/** Debian's static busybox as /bin/busybox with a link for each applet it has: a shell and the usual tools. */
async function busyboxTree(root: string): Promise<void> {
  await copyInto(root, [BUSYBOX]);
  const applets = (await run(BUSYBOX, ['--list'])).stdout.split('\n').filter((name) => /^[a-z0-9._-]+$/.test(name) && name !== 'busybox');
  for (const applet of applets) await symlink('busybox', join(root, 'bin', applet));
}

/** The Node binary running the tests, at its own path, with the shared libraries `ldd` lists at theirs. */
async function nodeTree(root: string): Promise<string> {
  const node = await realpath(process.execPath);
  const libraries = [...(await run('ldd', [node])).stdout.matchAll(/(\/\S+) \(0x/g)].map((match) => match[1] ?? '');
  await copyInto(root, [node, ...libraries]);
  await mkdir(join(root, 'tmp'), { recursive: true });
  return node;
}

/** `podman import` of a root file system as each of `images`, with its config (`CMD [...]`, `ENTRYPOINT [...]`) and variables. */
async function importTree(podman: PodmanService, root: string, config: string, images: Record<string, Record<string, string>>): Promise<void> {
  const tar = `${root}.tar`;
  await run('tar', ['-C', root, '-cf', tar, '.']);
  try {
    for (const [reference, env] of Object.entries(images)) {
      const changes = [config, ...Object.entries(env).map(([name, value]) => `ENV ${name}=${value}`)];
      await podman.cli(['import', '--quiet', ...changes.flatMap((change) => ['--change', change]), tar, reference]);
    }
  } finally {
    await rm(tar, { force: true });
  }
}

export interface TestImages {
  /** A busybox shell image: `sh -c` runs anything. */
  busybox: string;
  /** The host's Node binary as the entrypoint, two versions (IMAGE_VERSION 1 and 2 in their environment); a server script comes from a mounted volume. */
  node: [string, string];
}

const BUSYBOX_IMAGE = 'localhost/toolyard-test/busybox:1';

/** Only the busybox image of `importTestImages`, for tests that need an image and nothing to run in it. */
export async function importBusyboxImage(podman: PodmanService): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'toolyard-rootfs-'));
  try {
    await busyboxTree(join(work, 'busybox'));
    await importTree(podman, join(work, 'busybox'), 'CMD ["/bin/sh"]', { [BUSYBOX_IMAGE]: {} });
    return BUSYBOX_IMAGE;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Builds the images offline on the engine, as `localhost/toolyard-test/<name>:<tag>`, Podman's name for images made on the machine. */
export async function importTestImages(podman: PodmanService): Promise<TestImages> {
  const busybox = await importBusyboxImage(podman);
  const work = await mkdtemp(join(tmpdir(), 'toolyard-rootfs-'));
  try {
    const node: [string, string] = ['localhost/toolyard-test/node:1', 'localhost/toolyard-test/node:2'];
    const nodePath = await nodeTree(join(work, 'node'));
    await importTree(podman, join(work, 'node'), `ENTRYPOINT ${JSON.stringify([nodePath])}`, { [node[0]]: { IMAGE_VERSION: '1' }, [node[1]]: { IMAGE_VERSION: '2' } });
    return { busybox, node };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
