import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { PlatformConfig } from '../config.js';

/** A configured SCIM provisioner, as requests meet it: its token only as a digest, compared in constant time. */
export interface Provisioner {
  name: string;
  /** `scim:<name>`: the source of every record it makes. */
  source: string;
  /** The issuer of its provider's tokens, under which its users' binding values are kept; none in anonymous mode. */
  issuer: string | undefined;
  bindingAttribute: 'externalId' | 'userName';
  accepts(token: string): boolean;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Reads each provisioner's bearer token file (at start: a missing file stops the start, naming it). */
export async function loadProvisioners(config: PlatformConfig): Promise<Map<string, Provisioner>> {
  const providers = new Map((config.auth.oauth?.providers ?? []).map((provider) => [provider.name, provider]));
  const loaded = await Promise.all(
    config.directory.scimProvisioners.map(async (entry, index): Promise<Provisioner> => {
      let token: string;
      try {
        token = (await readFile(entry.bearerTokenFile, 'utf8')).trim();
      } catch {
        throw new Error(`directory.scimProvisioners[${index}].bearerTokenFile: cannot read ${entry.bearerTokenFile}`);
      }
      if (token === '') throw new Error(`directory.scimProvisioners[${index}].bearerTokenFile: ${entry.bearerTokenFile} is empty`);
      const expected = digest(token);
      const provider = entry.provider === undefined ? undefined : providers.get(entry.provider);
      return {
        name: entry.name,
        source: `scim:${entry.name}`,
        issuer: config.auth.mode === 'oauth' ? provider?.issuerUrl : undefined,
        bindingAttribute: entry.bindingAttribute,
        // both sides hashed first, so the comparison takes the same time whatever the lengths
        accepts: (candidate) => timingSafeEqual(digest(candidate), expected),
      };
    }),
  );
  return new Map(loaded.map((provisioner) => [provisioner.name, provisioner]));
}
