import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A package published to the fake registry: its package.json and the files beside it. */
export interface FixturePackage {
  name: string;
  version: string;
  bin: string | Record<string, string>;
  files: Record<string, string>;
}

export interface FakeNpmRegistry {
  url: string;
  /** Packument requests seen, by package name. */
  requests: string[];
  close: () => Promise<void>;
}

/** A dependency-free package whose bin prints its own name, so a test can run the resolved command. */
export function printingPackage(name: string, version: string, bin: FixturePackage['bin']): FixturePackage {
  const files = Object.fromEntries(
    (typeof bin === 'string' ? [bin] : Object.values(bin)).map((file) => [file, `#!/usr/bin/env node\nconsole.log(${JSON.stringify(`${name} ${file}`)});\n`]),
  );
  return { name, version, bin, files };
}

/** Writes the package to `dir/<safe name>` and packs it with the real `npm pack`. */
async function pack(fixture: FixturePackage, dir: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const source = join(dir, fixture.name.replace('/', '+'));
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'package.json'), JSON.stringify({ name: fixture.name, version: fixture.version, bin: fixture.bin }));
  for (const [file, content] of Object.entries(fixture.files)) await writeFile(join(source, file), content, { mode: 0o755 });
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', dir], { cwd: source, env });
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  return readFile(join(dir, packed?.filename ?? ''));
}

/**
 * An npm registry on loopback serving packuments and tarballs built with `npm pack`, faithful enough
 * for `npm install --registry` with integrity checks, and with no network involved.
 */
export async function startFakeNpmRegistry(
  fixtures: readonly FixturePackage[],
  workDir: string,
  /** npm's environment for packing: a temporary HOME keeps it out of the real one. */
  env: NodeJS.ProcessEnv,
): Promise<FakeNpmRegistry> {
  const tarballs = new Map<string, Buffer>();
  const packuments = new Map<string, (base: string) => unknown>();
  for (const fixture of fixtures) {
    const tarball = await pack(fixture, workDir, env);
    const file = `${fixture.name.replace(/^@[^/]+\//, '')}-${fixture.version}.tgz`;
    const path = `/${fixture.name}/-/${file}`;
    tarballs.set(path, tarball);
    packuments.set(fixture.name, (base) => ({
      name: fixture.name,
      'dist-tags': { latest: fixture.version },
      versions: {
        [fixture.version]: {
          name: fixture.name,
          version: fixture.version,
          bin: fixture.bin,
          dist: {
            tarball: `${base}${path}`,
            shasum: createHash('sha1').update(tarball).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
          },
        },
      },
    }));
  }
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const base = `http://${req.headers.host ?? ''}`;
    const tarball = tarballs.get(path);
    if (tarball !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
      return;
    }
    const name = path.slice(1);
    requests.push(name);
    const packument = packuments.get(name);
    if (packument === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument(base)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
