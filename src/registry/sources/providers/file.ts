import { readFile } from 'node:fs/promises';
import { catalogFromBytes, redact, SourceFetchError, type SourceProvider } from './provider.js';
import { fetchText } from './http-fetch.js';
import type { Fetch } from '../../../core/net/address-guard.js';
import type { SourceAccess } from '../access.js';

export interface FileSourceOptions {
  path?: string | undefined;
  url?: string | undefined;
  data?: unknown;
  timeoutMs: number;
  /** Backoff before retrying `url`; tests shorten it. */
  backoffMs?: number;
  /** What a source created through the API may read; absent for the configuration's own sources. */
  access?: SourceAccess | undefined;
  fetch?: Fetch | undefined;
}

export function createFileSource(options: FileSourceOptions): SourceProvider {
  return {
    async fetch({ signal }) {
      if (options.path !== undefined) {
        const refused = await options.access?.fileProblem('file.path', options.path);
        if (refused !== undefined) throw new SourceFetchError(refused);
        try {
          return catalogFromBytes(await readFile(options.path), options.path);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          throw new SourceFetchError(`cannot read ${options.path}: ${code ?? (error as Error).message}`);
        }
      }
      if (options.url !== undefined) {
        const body = await fetchText(options.url, {
          timeoutMs: options.timeoutMs,
          signal,
          access: options.access,
          fetch: options.fetch,
          ...(options.backoffMs !== undefined && { backoffMs: options.backoffMs }),
        });
        return catalogFromBytes(body, redact(options.url));
      }
      // data given through the admin API may be the document itself or a string holding it
      const data = typeof options.data === 'string' ? options.data : JSON.stringify(options.data ?? null);
      return catalogFromBytes(data, 'file.data');
    },
  };
}
