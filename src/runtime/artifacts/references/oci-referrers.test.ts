import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../core/errors.js';
import { sha256 } from '../digest.js';
import type { OciClient } from './oci-client.js';
import { parseOciName, type OciName } from './oci-name.js';
import { attachReferrer, findReferrers, referrersTag } from './oci-referrers.js';

const BUNDLE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
const name = parseOciName('registry.example.com/skills/code-review:1.0.0') as OciName;
const subject = { digest: sha256('the skill manifest'), size: 18 };

/** A registry in memory, with or without the referrers API (OCI distribution 1.1). */
function memoryRegistry(referrersApi: boolean) {
  const manifests = new Map<string, Buffer>();
  const blobs = new Map<string, Buffer>();
  const client: OciClient = {
    manifest: (wanted) => {
      const bytes = manifests.get(wanted.digest || wanted.tag);
      return bytes === undefined ? Promise.reject(new NotFoundError('no such manifest')) : Promise.resolve({ digest: sha256(bytes), bytes });
    },
    blob: (_name, digest) => Promise.resolve(blobs.get(digest) ?? Buffer.alloc(0)),
    push: (target, { blobs: pushed, manifest }) => {
      for (const blob of pushed) blobs.set(blob.digest, blob.data);
      manifests.set(target.digest || target.tag, manifest);
      const parsed = JSON.parse(manifest.toString()) as { subject?: unknown };
      return Promise.resolve({ digest: sha256(manifest), subjectIndexed: referrersApi && parsed.subject !== undefined });
    },
    referrers: (_name, digest) => {
      if (!referrersApi) return Promise.resolve(undefined);
      const referring = [...manifests.entries()]
        .map(([key, bytes]) => ({ key, bytes, parsed: JSON.parse(bytes.toString()) as { subject?: { digest: string }; artifactType?: string } }))
        .filter(({ key, parsed }) => key.startsWith('sha256:') && parsed.subject?.digest === digest)
        .map(({ bytes, parsed }) => ({ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha256(bytes), size: bytes.length, artifactType: parsed.artifactType }));
      return Promise.resolve(Buffer.from(JSON.stringify({ schemaVersion: 2, manifests: referring })));
    },
  };
  return { client, manifests };
}

const bundle = (text: string) => ({ artifactType: BUNDLE, annotations: { note: text }, data: Buffer.from(text) });

describe('artifacts attached to a manifest as OCI referrers', () => {
  it('relies on the referrers API when the registry indexes the subject itself: no referrers tag is written', async () => {
    const { client, manifests } = memoryRegistry(true);
    await attachReferrer(client, name, subject, bundle('first'));
    expect(manifests.has(referrersTag(subject.digest))).toBe(false);
    expect(await findReferrers(client, name, subject.digest, BUNDLE)).toEqual([bundle('first')]);
  });

  it('keeps the referrers tag index when the registry has no referrers API: entries added once each, other types left out', async () => {
    const { client, manifests } = memoryRegistry(false);
    await attachReferrer(client, name, subject, bundle('first'));
    await attachReferrer(client, name, subject, bundle('first'));
    await attachReferrer(client, name, subject, { ...bundle('sbom'), artifactType: 'application/spdx+json' });
    await attachReferrer(client, name, subject, bundle('second'));
    const index = JSON.parse(manifests.get(`sha256-${subject.digest.slice(7)}`)?.toString() ?? '{}') as { manifests: unknown[] };
    expect(index.manifests).toHaveLength(3);
    expect(await findReferrers(client, name, subject.digest, BUNDLE)).toEqual([bundle('first'), bundle('second')]);
  });

  it('finds nothing for a manifest nothing refers to', async () => {
    expect(await findReferrers(memoryRegistry(false).client, name, subject.digest, BUNDLE)).toEqual([]);
    expect(await findReferrers(memoryRegistry(true).client, name, subject.digest, BUNDLE)).toEqual([]);
  });
});
