import { expect } from 'vitest';
import type { TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, tempFile, type CallResult, type TestPlatform } from './helpers.js';

export const SCIM_TOKEN = 'scim-token-of-okta-0123456789';
export const OTHER_SCIM_TOKEN = 'scim-token-of-entra-9876543210';
export const SCIM_JSON = { 'content-type': 'application/scim+json' };

export interface DirectoryFixture {
  platform: TestPlatform;
  /** A SCIM request as provisioner `okta` (or `entra` with `as: 'entra'`). */
  scim<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, options?: { as?: 'okta' | 'entra'; headers?: Record<string, string> }): Promise<CallResult<T>>;
  /** Creates a SCIM user and returns its id. */
  scimUser(userName: string, extra?: Record<string, unknown>): Promise<string>;
}

/** The real platform with two SCIM provisioners (okta bound by externalId, entra by userName) of the test provider. */
export async function createDirectoryPlatform(provider: OidcProvider, target: TestDatabaseTarget, config: Record<string, unknown> = {}): Promise<DirectoryFixture> {
  const okta = await tempFile('okta.token', `${SCIM_TOKEN}\n`);
  const entra = await tempFile('entra.token', OTHER_SCIM_TOKEN);
  const platform = await createTestPlatform({
    target,
    config: {
      auth: oauthWith(provider, { resourceUrl: 'https://platform.example.com' }),
      ...config,
      directory: {
        ...(config.directory as Record<string, unknown> | undefined),
        scimProvisioners: [
          { name: 'okta', provider: 'test', bearerTokenFile: okta },
          { name: 'entra', provider: 'test', bearerTokenFile: entra, bindingAttribute: 'userName' },
        ],
      },
    },
  });
  const scim: DirectoryFixture['scim'] = (method, path, body, options = {}) =>
    platform.call(method, `/scim/v2/${options.as ?? 'okta'}${path}`, {
      token: options.as === 'entra' ? OTHER_SCIM_TOKEN : SCIM_TOKEN,
      ...(body !== undefined && { body }),
      headers: { ...(body !== undefined && SCIM_JSON), ...options.headers },
    });
  return {
    platform,
    scim,
    async scimUser(userName, extra = {}) {
      const response = await scim<{ id: string }>('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, ...extra });
      expect(response.status, response.text).toBe(201);
      return response.body.id;
    },
  };
}
