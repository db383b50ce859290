import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { DomainError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { KeylessSigner } from './keyless.js';
import type { KindSpec } from './kinds.js';
import { CREATED, type LayoutStore } from './layout.js';
import type { OciClient } from './references/oci-client.js';
import { parseOciName } from './references/oci-name.js';
import { attachReferrer } from './references/oci-referrers.js';
import { BUNDLE_ARTIFACT_TYPE, PUBLIC_KEY_ANNOTATION } from './signature-format.js';
import { checkSigningCapability } from './signing-capability.js';

export interface PushRequest {
  reference: string;
  key?: string | undefined;
  identity_token?: string | undefined;
  no_sign?: boolean | undefined;
  /** The `X-Service-Key-Signing-Capability` value; signing with `key` needs it. */
  capability?: string | undefined;
}

/** The registry could not take the push for a reason other than credentials (clarification point 15: 500). */
export class PushFailedError extends DomainError {
  constructor(message: string) {
    super(message, 500);
  }
}

export interface PushService {
  push: (request: PushRequest) => Promise<void>;
}

/** Pushes a local build to the registry its tag names, under that same name; with `key` or `identity_token`, attaches a sigstore bundle signing it. */
export function createPushService(options: { spec: KindSpec; layout: LayoutStore; registry: OciClient; keyless: KeylessSigner; stateDir: string; clock: Clock }): PushService {
  const { spec, layout, registry } = options;
  const signatureOf = async (manifest: Buffer, by: { signingKey?: KeyObject | undefined; identityToken?: string | undefined }): Promise<{ bundle: Buffer; annotations: Record<string, string> } | undefined> => {
    if (by.signingKey !== undefined) {
      const { signManifest } = await import('./signatures.js');
      const { bundle, publicKey } = signManifest(manifest, by.signingKey);
      return { bundle, annotations: { [PUBLIC_KEY_ANNOTATION]: publicKey } };
    }
    if (by.identityToken !== undefined) return { bundle: await options.keyless.sign(manifest, by.identityToken), annotations: {} };
    return undefined;
  };
  return {
    push: async ({ reference, key, identity_token, no_sign, capability }) => {
      const chosen = [key !== undefined, identity_token !== undefined, no_sign === true].filter(Boolean).length;
      if (chosen !== 1) throw new InvalidInputError('give exactly one of key, identity_token or no_sign: true');
      if (key !== undefined) await checkSigningCapability(options.stateDir, capability);
      let signingKey: KeyObject | undefined;
      if (key !== undefined) {
        const { loadSigningKey } = await import('./signatures.js');
        signingKey = await loadSigningKey(key);
      }
      const name = parseOciName(reference);
      if (name === undefined || name.digest !== '') throw new InvalidInputError(`reference "${reference}" is not a build tag of the form host/repository:tag`);
      const found = await layout.read(reference, spec.artifactType);
      if (found === undefined) throw new NotFoundError(`no local ${spec.singular} build is tagged ${reference}; build it with that tag first`);
      if (name.host === '') throw new InvalidInputError(`build tag ${reference} names no registry; build with a tag such as registry.example.com/${spec.kind}/${name.repository}:${name.tag || 'latest'}`);
      const blobs = await Promise.all([found.manifest.config, ...found.manifest.layers].map(async (descriptor) => ({ digest: descriptor.digest, data: await layout.blob(descriptor.digest) })));
      const manifest = await layout.blob(found.entry.digest);
      // signed before anything is pushed, so a refused identity token leaves the registry as it was
      const signature = await signatureOf(manifest, { signingKey, identityToken: identity_token });
      try {
        await registry.push(name, { blobs, manifest });
        if (signature !== undefined) {
          await attachReferrer(registry, name, { digest: found.entry.digest, size: manifest.length }, {
            artifactType: BUNDLE_ARTIFACT_TYPE,
            data: signature.bundle,
            annotations: { ...signature.annotations, [CREATED]: options.clock.now().toISOString() },
          });
        }
      } catch (error) {
        if (error instanceof DomainError && (error.status === 401 || error.status === 403)) throw new ForbiddenError(error.message);
        throw new PushFailedError((error as Error).message);
      }
    },
  };
}
