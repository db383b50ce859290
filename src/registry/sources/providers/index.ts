import { parseDuration } from '../../../core/config/duration.js';
import type { SourceKind } from '../../tables.js';
import { createApiSource } from './api.js';
import type { ApiSourceSchema, FileSourceSchema, GitSourceSchema } from '../definition.js';
import { createFileSource } from './file.js';
import { createGitSource } from './git.js';
import type { SourceProvider } from './provider.js';
import type { SourceAccess } from '../access.js';
import type { Fetch } from '../../../core/net/address-guard.js';
import type { Static } from '@sinclair/typebox';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_GIT_TIMEOUT_MS = 120_000;

export interface ProviderOptions {
  /** Backoff before retrying an HTTP request; tests shorten it. */
  httpBackoffMs?: number;
  /** Replaces the network for api and file.url sources (tests). */
  fetch?: Fetch;
  /** The process environment: git needs PATH and HOME. */
  env?: Record<string, string | undefined>;
}

function timeout(value: string | undefined, fallback: number): number {
  return (value === undefined ? undefined : parseDuration(value)) ?? fallback;
}

/** Builds the provider for a stored source definition of a synced kind. */
export function createSourceProvider(
  kind: SourceKind,
  config: Record<string, unknown>,
  options: ProviderOptions = {},
  /** The rules for a source created through the API; absent for the configuration file's own sources. */
  access?: SourceAccess,
): SourceProvider {
  switch (kind) {
    case 'git': {
      const git = config as Static<typeof GitSourceSchema>;
      return createGitSource({
        repository: git.repository,
        branch: git.branch,
        tag: git.tag,
        commit: git.commit,
        path: git.path ?? 'registry.json',
        auth: git.auth,
        timeoutMs: timeout(git.timeout, DEFAULT_GIT_TIMEOUT_MS),
        env: { PATH: options.env?.PATH, HOME: options.env?.HOME },
        access,
      });
    }
    case 'api': {
      const api = config as Static<typeof ApiSourceSchema>;
      return createApiSource({
        endpoint: api.endpoint,
        timeoutMs: timeout(api.timeout, DEFAULT_TIMEOUT_MS),
        access,
        fetch: options.fetch,
        ...(options.httpBackoffMs !== undefined && { backoffMs: options.httpBackoffMs }),
      });
    }
    case 'file': {
      const file = config as Static<typeof FileSourceSchema>;
      return createFileSource({
        path: file.path,
        url: file.url,
        data: file.data,
        timeoutMs: timeout(file.timeout, DEFAULT_TIMEOUT_MS),
        access,
        fetch: options.fetch,
        ...(options.httpBackoffMs !== undefined && { backoffMs: options.httpBackoffMs }),
      });
    }
    case 'managed':
    case 'kubernetes':
      throw new Error(`${kind} sources are not synced`);
  }
}
