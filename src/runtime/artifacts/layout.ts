import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { BrokenStateFileError, readStateFile, withFileLock, writeFileAtomic } from '../state/files.js';
import { sha256 } from './digest.js';

export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
export const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';
export const LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const EMPTY_MEDIA_TYPE = 'application/vnd.oci.empty.v1+json';
export const REF_NAME = 'org.opencontainers.image.ref.name';
export const TITLE = 'org.opencontainers.image.title';
export const VERSION = 'org.opencontainers.image.version';
export const CREATED = 'org.opencontainers.image.created';

const Descriptor = Type.Object({
  mediaType: Type.String(),
  digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }),
  size: Type.Integer({ minimum: 0 }),
  artifactType: Type.Optional(Type.String()),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type Descriptor = Static<typeof Descriptor>;
export const Index = Type.Object({ schemaVersion: Type.Literal(2), mediaType: Type.Optional(Type.String()), manifests: Type.Array(Descriptor) });
export type Index = Static<typeof Index>;
export const Manifest = Type.Object({ schemaVersion: Type.Literal(2), artifactType: Type.Optional(Type.String()), layers: Type.Array(Descriptor), config: Descriptor });
export type Manifest = Static<typeof Manifest>;

/** A tagged manifest of the layout, with what its index entry says of it. */
export interface LayoutEntry {
  tag: string;
  digest: string;
  artifactType: string;
  annotations: Record<string, string>;
}

/** The local OCI image layout (`<data>/oci`): build outputs, addressed by tag like an image registry. */
export interface LayoutStore {
  /** Stores the one-layer artifact under `tag` (replacing what the tag named) and returns its manifest digest. */
  put: (input: { tag: string; artifactType: string; annotations: Record<string, string>; layer: Buffer }) => Promise<string>;
  list: () => Promise<LayoutEntry[]>;
  /** Forgets the tag and deletes the blobs no other tag needs; false when the tag is not there. */
  remove: (tag: string, artifactType: string) => Promise<boolean>;
  /** The manifest and its one layer, or undefined when the tag is not there. */
  read: (tag: string, artifactType: string) => Promise<{ entry: LayoutEntry; manifest: Manifest; layer: Buffer } | undefined>;
  /** The bytes of a blob the layout holds (a manifest as it was written, so its digest still holds). */
  blob: (digest: string) => Promise<Buffer>;
}

const EMPTY_INDEX: Index = { schemaVersion: 2, mediaType: INDEX_MEDIA_TYPE, manifests: [] };

export function createLayoutStore(dir: string): LayoutStore {
  const indexPath = join(dir, 'index.json');
  const blobPath = (digest: string): string => join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length));
  const readIndex = async (): Promise<Index> => (await readStateFile(indexPath, Index)) ?? EMPTY_INDEX;
  const writeIndex = (index: Index): Promise<void> => writeFileAtomic(indexPath, `${JSON.stringify(index, null, 2)}\n`, 0o644);
  const locked = <T>(fn: () => Promise<T>): Promise<T> => withFileLock(join(dir, 'index.json'), fn);

  const putBlob = async (data: Buffer): Promise<Descriptor & { digest: string }> => {
    const digest = sha256(data);
    const present = await stat(blobPath(digest)).then(
      (stats) => stats.size === data.length,
      () => false,
    );
    if (!present) {
      // content-addressed: a blob is written once, through a temporary file so no reader sees it half-written
      const path = blobPath(digest);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, data, { mode: 0o644 });
      await rename(temporary, path);
    }
    return { mediaType: '', digest, size: data.length };
  };

  const blobsOf = async (descriptor: Descriptor): Promise<string[]> => {
    const manifest = await readManifest(descriptor.digest);
    return [descriptor.digest, manifest.config.digest, ...manifest.layers.map((layer) => layer.digest)];
  };

  /** Deletes the blobs of the dropped manifests that no kept manifest refers to. */
  const collect = async (dropped: readonly Descriptor[], kept: readonly Descriptor[]): Promise<void> => {
    const needed = new Set((await Promise.all(kept.map(blobsOf))).flat());
    for (const descriptor of dropped) {
      for (const digest of await blobsOf(descriptor)) if (!needed.has(digest)) await rm(blobPath(digest), { force: true });
    }
  };

  const readManifest = async (digest: string): Promise<Manifest> => {
    const manifest = await readStateFile(blobPath(digest), Manifest);
    if (manifest === undefined) throw new BrokenStateFileError(indexPath, `the manifest ${digest} it names is missing`);
    return manifest;
  };

  const entryOf = (descriptor: Descriptor): LayoutEntry => ({
    tag: descriptor.annotations?.[REF_NAME] ?? '',
    digest: descriptor.digest,
    artifactType: descriptor.artifactType ?? '',
    annotations: descriptor.annotations ?? {},
  });

  return {
    put: ({ tag, artifactType, annotations, layer }) =>
      locked(async () => {
        await writeFileAtomic(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}\n', 0o644);
        const config = { ...(await putBlob(Buffer.from('{}'))), mediaType: EMPTY_MEDIA_TYPE };
        const layerDescriptor = { ...(await putBlob(layer)), mediaType: LAYER_MEDIA_TYPE };
        const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MANIFEST_MEDIA_TYPE, artifactType, config, layers: [layerDescriptor], annotations }));
        const { digest, size } = await putBlob(manifest);
        const index = await readIndex();
        const others = index.manifests.filter((descriptor) => descriptor.annotations?.[REF_NAME] !== tag);
        const added: Descriptor = { mediaType: MANIFEST_MEDIA_TYPE, digest, size, artifactType, annotations: { ...annotations, [REF_NAME]: tag } };
        await writeIndex({ ...index, manifests: [...others, added] });
        await collect(
          index.manifests.filter((descriptor) => !others.includes(descriptor)),
          [...others, added],
        );
        return digest;
      }),
    list: async () => (await readIndex()).manifests.map(entryOf),
    remove: (tag, artifactType) =>
      locked(async () => {
        const index = await readIndex();
        const kept = index.manifests.filter((descriptor) => descriptor.annotations?.[REF_NAME] !== tag || descriptor.artifactType !== artifactType);
        if (kept.length === index.manifests.length) return false;
        await writeIndex({ ...index, manifests: kept });
        await collect(
          index.manifests.filter((descriptor) => !kept.includes(descriptor)),
          kept,
        );
        return true;
      }),
    read: async (tag, artifactType) => {
      const descriptor = (await readIndex()).manifests.find((item) => item.annotations?.[REF_NAME] === tag && item.artifactType === artifactType);
      if (descriptor === undefined) return undefined;
      const manifest = await readManifest(descriptor.digest);
      const layer = manifest.layers[0];
      if (layer === undefined) return undefined;
      return { entry: entryOf(descriptor), manifest, layer: await readFile(blobPath(layer.digest)) };
    },
    blob: (digest) => readFile(blobPath(digest)),
  };
}
