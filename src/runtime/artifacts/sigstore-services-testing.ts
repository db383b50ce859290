import { createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { json } from '@sigstore/core';
import { decodeJwt } from 'jose';
import { createTestTlog, RFC6962_LEAF, sha256, type TestCa, type TestTlog } from './sigstore-testing.js';

/** A service the tests start on a loopback port. */
export interface FakeService {
  url: string;
  close: () => Promise<void>;
}

async function serve(handle: (body: unknown, request: IncomingMessage) => Promise<{ status: number; body: unknown }>): Promise<FakeService> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        let answer: { status: number; body: unknown };
        try {
          answer = await handle(JSON.parse(Buffer.concat(chunks).toString('utf8')), request);
        } catch (error) {
          answer = { status: 400, body: { code: 400, message: (error as Error).message } };
        }
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface SigningCertRequest {
  credentials: { oidcIdentityToken: string };
  publicKeyRequest: { publicKey: { content: string }; proofOfPossession: string };
}

/**
 * Fulcio's `POST /api/v2/signingCert`: checks the proof of possession (the token's email, or its sub,
 * signed by the key) and issues a leaf of `ca` naming the token's email and issuer. Tokens are not
 * verified against their issuer; one whose `sub` is `refused` is answered 401, as an expired one would be.
 */
export function startFakeFulcio(ca: TestCa): Promise<FakeService> {
  return serve(async (body, request) => {
    if (request.url !== '/api/v2/signingCert') return { status: 404, body: { message: 'not found' } };
    const { credentials, publicKeyRequest } = body as SigningCertRequest;
    const claims = decodeJwt(credentials.oidcIdentityToken);
    if (claims.sub === 'refused') return { status: 401, body: { code: 16, message: 'There was an error processing the identity token' } };
    const key = createPublicKey(publicKeyRequest.publicKey.content);
    const challenge = Buffer.from(typeof claims.email === 'string' ? claims.email : (claims.sub ?? ''));
    if (!verify('sha256', challenge, key, Buffer.from(publicKeyRequest.proofOfPossession, 'base64'))) return { status: 400, body: { message: 'The signature supplied in the request could not be verified' } };
    const identity = typeof claims.email === 'string' ? { email: claims.email } : { uri: claims.sub ?? '' };
    const leaf = await ca.issue(key, { ...identity, issuer: claims.iss ?? '' });
    const certificates = [leaf, ca.certificate].map((der) => new X509Certificate(der).toString());
    return { status: 201, body: { signedCertificateEmbeddedSct: { chain: { certificates } } } };
  });
}

/** Rekor's `POST /api/v1/log/entries`, over a log of its own at its URL: the proposed entry is stored canonicalized, as Rekor stores it. */
export async function startFakeRekor(signingKey: KeyObject): Promise<FakeService & { tlog: TestTlog }> {
  // the log is named by the URL the server gets, so it is made once the server listens
  const log: { tlog?: TestTlog } = {};
  const service = await serve((body, request) => {
    const tlog = log.tlog;
    if (request.url !== '/api/v1/log/entries' || tlog === undefined) return Promise.resolve({ status: 404, body: { message: 'not found' } });
    const canonical = Buffer.from(json.canonicalize(body));
    const entry = tlog.append(canonical);
    return Promise.resolve({ status: 201, body: { [sha256(RFC6962_LEAF, canonical).toString('hex')]: entry } });
  });
  log.tlog = createTestTlog(service.url, signingKey);
  return { ...service, tlog: log.tlog };
}
