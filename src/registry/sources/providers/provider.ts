import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { CatalogFormatError, parseCatalogDocument, type ParsedCatalog } from './catalog-document.js';

/** What one fetch of a source brought: a fingerprint of the raw data and a way to parse it. */
export interface FetchedCatalog {
  /** Changes whenever the data changes; an unchanged fingerprint lets the sync skip parsing and writing. */
  fingerprint: string;
  parse(): ParsedCatalog;
}

export interface FetchContext {
  signal: AbortSignal;
  logger: Logger;
}

/** One source kind's way of getting its catalog; the sync writer does everything else. */
export interface SourceProvider {
  fetch(context: FetchContext): Promise<FetchedCatalog>;
}

/** The source could not be read; the message is shown in syncStatus and must not hold secrets. */
export class SourceFetchError extends Error {}

/** Removes credentials embedded in URLs (`https://user:token@host`) from anything shown to people. */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A catalog held as bytes (a file, a git blob, an HTTP body): hashed as is, parsed only when needed. */
export function catalogFromBytes(bytes: Buffer | string, origin: string): FetchedCatalog {
  return {
    fingerprint: sha256(bytes),
    parse: () => {
      let document: unknown;
      try {
        document = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
      } catch (error) {
        // the parser's message quotes the text itself, which must not leak into sync status
        const position = /position (\d+)/.exec((error as Error).message)?.[1];
        throw new CatalogFormatError(`${origin} is not valid JSON${position === undefined ? '' : ` (at position ${position})`}`);
      }
      return parseCatalogDocument(document);
    },
  };
}
