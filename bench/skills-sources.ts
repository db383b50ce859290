/**
 * What bench/skills.ts installs from: generated skill folders, a git repository behind `git daemon`,
 * and the local OCI registry behind a counting HTTP proxy, so a sync that should contact nothing can
 * show that it did not.
 */
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { writeTree } from '../src/runtime/artifacts/artifacts-testing.js';
import { startLocalRegistry } from '../test/helpers/docker-registry.js';
import { closeServer, listen } from './ceiling-server.js';

/** Files in the large skill, and the size of each besides SKILL.md. */
export const LARGE_FILES = 200;
const FILE_BYTES = 3 * 1024;

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Helps with ${name}.\nlicense: Apache-2.0\nmetadata:\n  version: "1.0.0"\n---\n# ${name}\n\nSteps.\n`;

/** `<parent>/<name>`: SKILL.md and 199 reference files of a few KB, spread over ten folders. */
export function writeLargeSkill(parent: string, name: string): Promise<string> {
  const files: Record<string, string> = { 'SKILL.md': skillMd(name) };
  for (let index = 1; index < LARGE_FILES; index++) {
    const line = `Reference note ${String(index)} of ${name}: what to check and why.\n`;
    files[`references/part-${String(index % 10)}/note-${String(index).padStart(3, '0')}.md`] = line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES);
  }
  return writeTree(join(parent, name), files);
}

/** A small skill of three files, as most lock file entries are. */
export function writeSmallSkill(parent: string, name: string): Promise<string> {
  return writeTree(join(parent, name), { 'SKILL.md': skillMd(name), 'scripts/check.sh': '#!/bin/sh\necho ok\n', 'notes.md': `Notes for ${name}.\n` });
}

export interface CountedRegistry {
  /** `127.0.0.1:<port>` of the proxy: the registry part of references. */
  host: string;
  /** Requests that reached the registry so far. */
  requests: () => number;
  stop: () => Promise<void>;
}

/** Debian's docker-registry behind a proxy that counts every request; the reason when it cannot run here. */
export async function startCountedRegistry(): Promise<{ registry: CountedRegistry } | { reason: string }> {
  const started = await startLocalRegistry();
  if (started.registry === undefined) return { reason: started.reason };
  const upstream = started.registry;
  const [hostname, port] = upstream.host.split(':');
  let count = 0;
  const proxy = createServer((incoming, outgoing) => {
    count += 1;
    const forwarded = request({ host: hostname, port: Number(port), method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  const origin = await listen(proxy);
  return {
    registry: {
      host: new URL(origin).host,
      requests: () => count,
      stop: async () => {
        await closeServer(proxy);
        await upstream.stop();
      },
    },
  };
}

/** The floor of a registry install: the manifest and its one layer fetched directly, nothing unpacked. */
export async function fetchArtifact(host: string, repository: string, tag: string): Promise<number> {
  const manifest = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } });
  if (!manifest.ok) throw new Error(`manifest of ${repository}:${tag} answered ${String(manifest.status)}`);
  const { layers } = (await manifest.json()) as { layers: { digest: string }[] };
  const blob = await fetch(`http://${host}/v2/${repository}/blobs/${layers[0]?.digest ?? ''}`);
  if (!blob.ok) throw new Error(`layer of ${repository}:${tag} answered ${String(blob.status)}`);
  return (await blob.arrayBuffer()).byteLength;
}
