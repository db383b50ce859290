import { basename } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { BadGatewayError, InvalidInputError } from '../../../core/errors.js';
import { LIMITS, snapshotFolder } from '../folder.js';
import { CREATED, Manifest } from '../layout.js';
import { unpackLayer } from '../pack.js';
import { BUNDLE_ARTIFACT_TYPE, PUBLIC_KEY_ANNOTATION, SignatureInvalidError, type StoredSignature } from '../signature-format.js';
import type { TrustSource } from '../trusted-root.js';
import type { OciClient, PulledManifest } from './oci-client.js';
import { formatOciName, parseOciName, type OciName } from './oci-name.js';
import { findReferrers } from './oci-referrers.js';
import type { Provenance, ReferenceResolver } from './resolver.js';

/**
 * A reference this resolver takes (clarification point 3 (c)): a registry host and either a digest,
 * a tag, or a host that cannot be a catalog namespace (`localhost` or with a port).
 */
export function parseOciReference(reference: string): OciName | undefined {
  if (!reference.includes('/')) return undefined;
  const name = parseOciName(reference);
  if (name === undefined || name.host === '') return undefined;
  const hostOnly = name.host === 'localhost' || /:\d+$/.test(name.host);
  return name.digest !== '' || name.tag !== '' || hostOnly ? name : undefined;
}

/** What sync reinstalls a lock entry from: the registry reference held at its manifest digest, so a moved tag changes nothing. */
export function pinnedReference(resolvedReference: string, digest: string): string {
  const name = parseOciReference(resolvedReference);
  if (name === undefined || name.digest !== '' || !digest.startsWith('sha256:')) return resolvedReference;
  return formatOciName({ ...name, digest });
}

/**
 * The signature of a pulled manifest: every sigstore bundle referring to it must verify (one that
 * does not is refused, not skipped: someone attached it); the newest names the signer. Undefined when none refers to it.
 */
async function verifiedSignature(client: OciClient, trustSource: TrustSource, name: OciName, pulled: PulledManifest, what: string): Promise<{ provenance: Provenance; stored: StoredSignature } | undefined> {
  const bundles = await findReferrers(client, name, pulled.digest, BUNDLE_ARTIFACT_TYPE);
  if (bundles.length === 0) return undefined;
  const trust = await trustSource();
  const { verifyManifestSignature } = await import('../signatures.js');
  const verified = bundles.map((referrer) => {
    let bundle: unknown;
    try {
      bundle = JSON.parse(referrer.data.toString('utf8'));
    } catch {
      throw new SignatureInvalidError(`${what}: a signature bundle attached to it is not JSON`);
    }
    const publicKey = referrer.annotations[PUBLIC_KEY_ANNOTATION] ?? '';
    const provenance = verifyManifestSignature({ bundle, publicKey, manifest: pulled.bytes, what }, { trust });
    return { provenance, created: referrer.annotations[CREATED] ?? '', stored: { bundle, public_key: publicKey, manifest: pulled.bytes.toString('base64') } };
  });
  return verified.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0)).at(-1);
}

/** Pulls one-layer skill or plugin artifacts from OCI registries, pinned at the manifest digest; certificate signatures verify against `trust`. */
export function ociResolver(client: OciClient, trust: TrustSource): ReferenceResolver {
  return {
    resolve: async (reference, { spec, scratch, version }) => {
      const asked = parseOciReference(reference);
      if (asked === undefined) return undefined;
      const name = asked.tag === '' && asked.digest === '' ? { ...asked, tag: version ?? 'latest' } : asked;
      const what = formatOciName(name);
      const pulled = await client.manifest(name);
      let parsed: unknown;
      try {
        parsed = JSON.parse(pulled.bytes.toString('utf8'));
      } catch {
        throw new BadGatewayError(`${what}: the registry's manifest is not JSON`);
      }
      if (!Value.Check(Manifest, parsed)) throw new BadGatewayError(`${what}: the registry's answer is not an OCI image manifest`);
      if (parsed.artifactType !== spec.artifactType) throw new InvalidInputError(`${what} is not a ${spec.singular} (its artifact type is ${parsed.artifactType ?? 'none'}, not ${spec.artifactType})`);
      const layer = parsed.layers[0];
      if (layer === undefined || parsed.layers.length !== 1) throw new InvalidInputError(`${what} must hold exactly one layer, the ${spec.singular}'s folder`);
      if (layer.size > LIMITS.totalBytes) throw new InvalidInputError(`${what} has a ${String(layer.size)}-byte layer; at most ${String(LIMITS.totalBytes)} bytes are allowed`);
      const dir = await unpackLayer(await client.blob(name, layer.digest, layer.size), scratch);
      const snapshot = await snapshotFolder(dir, basename(dir));
      const repositoryName = name.repository.split('/').at(-1) ?? '';
      const identity = spec.identify(snapshot);
      if (spec.validate(snapshot).blocking.length === 0 && identity.name !== repositoryName) {
        throw new InvalidInputError(`${what} holds the ${spec.singular} ${identity.name}; its repository must end in /${identity.name}, not /${repositoryName}`);
      }
      // the reference keeps the tag it was asked by (the record and the lock file show it); the digest is what pins it
      const shown = formatOciName({ ...name, digest: name.tag === '' ? pulled.digest : '' });
      const signed = await verifiedSignature(client, trust, name, pulled, what);
      return { dir, reference: shown, digest: pulled.digest, tag: name.tag, provenance: signed?.provenance ?? null, unsigned: signed === undefined, signature: signed?.stored };
    },
  };
}
