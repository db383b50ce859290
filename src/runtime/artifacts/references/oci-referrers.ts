import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { BadGatewayError, NotFoundError } from '../../../core/errors.js';
import { sha256 } from '../digest.js';
import { EMPTY_MEDIA_TYPE, INDEX_MEDIA_TYPE, Index, Manifest, MANIFEST_MEDIA_TYPE, type Descriptor } from '../layout.js';
import type { OciClient } from './oci-client.js';
import { formatOciName, type OciName } from './oci-name.js';

/** An artifact attached to a manifest: what it is, its one layer and the annotations its manifest carries. */
export interface Referrer {
  artifactType: string;
  annotations: Record<string, string>;
  data: Buffer;
}

const ReferrerManifest = Type.Object({ ...Manifest.properties, annotations: Type.Optional(Type.Record(Type.String(), Type.String())) });
const EMPTY_CONFIG = Buffer.from('{}');
/** A signature bundle is a few kilobytes; anything far larger is not one. */
const MAX_REFERRER_BYTES = 1024 * 1024;

/** OCI distribution 1.1's referrers tag schema: the tag holding the index of what refers to `digest`, for registries without the referrers API. */
export const referrersTag = (digest: string): string => digest.replace(':', '-');

const parseJson = (bytes: Buffer, what: string): unknown => {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BadGatewayError(`${what}: the registry's answer is not JSON`);
  }
};

/** The index the referrers tag holds, or an empty one when the tag is not there. */
async function fallbackIndex(client: OciClient, name: OciName, digest: string): Promise<Index> {
  const tagged = { ...name, tag: referrersTag(digest), digest: '' };
  try {
    const parsed = parseJson((await client.manifest(tagged, INDEX_MEDIA_TYPE)).bytes, formatOciName(tagged));
    if (!Value.Check(Index, parsed)) throw new BadGatewayError(`${formatOciName(tagged)} is not an OCI image index`);
    return parsed;
  } catch (error) {
    if (error instanceof NotFoundError) return { schemaVersion: 2, mediaType: INDEX_MEDIA_TYPE, manifests: [] };
    throw error;
  }
}

/**
 * Pushes `artifact` as a manifest whose `subject` is the manifest `subject`. A registry that does not
 * answer `OCI-Subject` does not index it: the referrers tag's index is then updated as OCI
 * distribution 1.1 says (read, add, write back; two pushes at once may lose one entry, as there).
 */
export async function attachReferrer(client: OciClient, name: OciName, subject: { digest: string; size: number }, artifact: Referrer): Promise<void> {
  const layer = { mediaType: artifact.artifactType, digest: sha256(artifact.data), size: artifact.data.length };
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST_MEDIA_TYPE,
      artifactType: artifact.artifactType,
      config: { mediaType: EMPTY_MEDIA_TYPE, digest: sha256(EMPTY_CONFIG), size: EMPTY_CONFIG.length },
      layers: [layer],
      subject: { mediaType: MANIFEST_MEDIA_TYPE, ...subject },
      annotations: artifact.annotations,
    }),
  );
  const digest = sha256(manifest);
  const blobs = [
    { digest: sha256(EMPTY_CONFIG), data: EMPTY_CONFIG },
    { digest: layer.digest, data: artifact.data },
  ];
  const pushed = await client.push({ ...name, tag: '', digest }, { blobs, manifest });
  if (pushed.subjectIndexed) return;
  const index = await fallbackIndex(client, name, subject.digest);
  if (index.manifests.some((entry) => entry.digest === digest)) return;
  const entry: Descriptor = { mediaType: MANIFEST_MEDIA_TYPE, digest, size: manifest.length, artifactType: artifact.artifactType, annotations: artifact.annotations };
  const updated = Buffer.from(JSON.stringify({ ...index, mediaType: INDEX_MEDIA_TYPE, manifests: [...index.manifests, entry] }));
  await client.push({ ...name, tag: referrersTag(subject.digest), digest: '' }, { blobs: [], manifest: updated, mediaType: INDEX_MEDIA_TYPE });
}

/** The artifacts of `artifactType` referring to the manifest `digest`: by the referrers API, else by the referrers tag. */
export async function findReferrers(client: OciClient, name: OciName, digest: string, artifactType: string): Promise<Referrer[]> {
  const what = `the artifacts referring to ${formatOciName({ ...name, tag: '', digest })}`;
  const listed = await client.referrers(name, digest);
  let index: Index;
  if (listed === undefined) {
    index = await fallbackIndex(client, name, digest);
  } else {
    const parsed = parseJson(listed, what);
    if (!Value.Check(Index, parsed)) throw new BadGatewayError(`${what}: the registry's referrers answer is not an OCI image index`);
    index = parsed;
  }
  const found: Referrer[] = [];
  // the registry may ignore the artifactType filter, so the index is filtered here
  for (const entry of index.manifests.filter((item) => item.artifactType === artifactType)) {
    const referrer = { ...name, tag: '', digest: entry.digest };
    const manifest = parseJson((await client.manifest(referrer)).bytes, formatOciName(referrer));
    if (!Value.Check(ReferrerManifest, manifest)) throw new BadGatewayError(`${formatOciName(referrer)} is not an OCI image manifest`);
    const layer = manifest.layers[0];
    if (manifest.layers.length !== 1 || layer === undefined || layer.size > MAX_REFERRER_BYTES) throw new BadGatewayError(`${formatOciName(referrer)} does not hold one small ${artifactType} layer`);
    found.push({ artifactType, annotations: manifest.annotations ?? {}, data: await client.blob(name, layer.digest, layer.size) });
  }
  return found;
}
