/**
 * A tiny OpenID provider for the registry benchmark: a node:http server on loopback that serves its
 * discovery document (issuer = its own base URL) and its JWKS, and mints RS256 access tokens for the
 * benchmark's personas. It counts the requests it answers, so the benchmark can show that the
 * registry fetched the keys once and never per request.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface BenchOidcProvider {
  /** The issuer URL, also the base URL of the discovery document. */
  issuer: string;
  audience: string;
  /** Requests answered so far, by path. */
  served: { discovery: number; jwks: number; other: number };
  /** An RS256 access token for a subject with these extra claims, valid for `lifetimeSeconds`. */
  mint(subject: string, claims: Record<string, unknown>, lifetimeSeconds?: number): Promise<string>;
  close(): Promise<void>;
}

const DISCOVERY_PATH = '/.well-known/openid-configuration';
const JWKS_PATH = '/jwks.json';

export async function startOidcProvider(audience: string): Promise<BenchOidcProvider> {
  const kid = `bench-${randomUUID().slice(0, 8)}`;
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const served = { discovery: 0, jwks: 0, other: 0 };
  let issuer = '';

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      const bytes = Buffer.from(JSON.stringify(body));
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
      response.end(bytes);
    };
    if (request.method === 'GET' && path === DISCOVERY_PATH) {
      served.discovery++;
      json(200, {
        issuer,
        jwks_uri: `${issuer}${JWKS_PATH}`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
      return;
    }
    if (request.method === 'GET' && path === JWKS_PATH) {
      served.jwks++;
      json(200, { keys: [jwk] });
      return;
    }
    served.other++;
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    audience,
    served,
    mint(subject, claims, lifetimeSeconds = 3_600) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .setJti(randomUUID())
        .sign(privateKey);
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
