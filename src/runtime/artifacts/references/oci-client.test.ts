import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../digest.js';
import type { RegistryCredential } from '../../credentials/store.js';
import { createOciClient, parseBearerChallenge, registryBase } from './oci-client.js';
import { parseOciName, type OciName } from './oci-name.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('the OCI distribution client against a registry that needs tokens or fails', () => {
  const routes = new Map<string, Handler>();
  const tokenRequests: string[] = [];
  const referrerAccepts: string[] = [];
  const referrerIndex = Buffer.from('{"schemaVersion":2,"manifests":[]}');
  let server: Server;
  let host: string;
  const manifest = Buffer.from('{"schemaVersion":2}');
  const blob = Buffer.from('layer bytes');
  const client = createOciClient({ metadataTimeoutMs: 300, transferTimeoutMs: 300 });
  const name = (reference: string): OciName => parseOciName(`${host}/${reference}`) as OciName;
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as { status: number; message: string; headers: Record<string, string> });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const handler = routes.get(`${request.method ?? 'GET'} ${path}`);
      if (handler === undefined) return response.writeHead(404).end();
      handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${String((server.address() as { port: number }).port)}`;
    const withToken = (send: (response: ServerResponse) => void): Handler => (request, response) => {
      if (request.headers.authorization !== 'Bearer granted') {
        return response.writeHead(401, { 'www-authenticate': `Bearer realm="http://${host}/token",service="fake",scope="repository:skills/private:pull"` }).end();
      }
      send(response);
    };
    routes.set('GET /token', (request, response) => {
      tokenRequests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"granted"}');
    });
    routes.set('GET /v2/skills/private/manifests/1.0.0', withToken((response) => response.writeHead(200, { 'docker-content-digest': sha256(manifest) }).end(manifest)));
    routes.set(`GET /v2/skills/private/blobs/${sha256(blob)}`, withToken((response) => response.writeHead(200).end(blob)));
    routes.set('GET /v2/skills/basic/manifests/1.0.0', (_request, response) => response.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end());
    routes.set('GET /v2/skills/busy/manifests/1.0.0', (_request, response) => response.writeHead(429, { 'retry-after': '7' }).end());
    routes.set('GET /v2/skills/broken/manifests/1.0.0', (_request, response) => response.writeHead(500).end('oops'));
    routes.set('GET /v2/skills/slow/manifests/1.0.0', () => undefined);
    routes.set('GET /v2/skills/lying/manifests/1.0.0', (_request, response) => response.writeHead(200, { 'docker-content-digest': sha256('other') }).end(manifest));
    routes.set(`GET /v2/skills/lying/manifests/${sha256('other')}`, (_request, response) => response.writeHead(200).end(manifest));
    routes.set(`GET /v2/skills/lying/blobs/${sha256(blob)}`, (_request, response) => response.writeHead(200).end('tampered'));
    // a registry with the referrers API (OCI distribution 1.1): it says OCI-Subject to a manifest with a subject, and lists referrers
    routes.set(`PUT /v2/skills/modern/manifests/${sha256(manifest)}`, (request, response) => {
      request.resume();
      response.writeHead(201, { 'oci-subject': sha256('subject') }).end();
    });
    routes.set(`GET /v2/skills/modern/referrers/${sha256('subject')}`, (request, response) => {
      referrerAccepts.push(request.headers.accept ?? '');
      response.writeHead(200, { 'content-type': 'application/vnd.oci.image.index.v1+json' }).end(referrerIndex);
    });
    routes.set(`GET /v2/skills/modern/referrers/${sha256('broken')}`, (_request, response) => response.writeHead(500).end());
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('speaks plain http only to a registry on this machine', () => {
    expect(registryBase('127.0.0.1:5000')).toBe('http://127.0.0.1:5000/v2/');
    expect(registryBase('localhost:5000')).toBe('http://localhost:5000/v2/');
    expect(registryBase('ghcr.io')).toBe('https://ghcr.io/v2/');
    expect(registryBase('10.0.0.5:5000')).toBe('https://10.0.0.5:5000/v2/');
  });

  it('answers a Bearer challenge with an anonymous token for the scope it names, and reuses it for the blobs', async () => {
    expect(parseBearerChallenge('Bearer realm="https://auth.example/token",service="reg",scope="repository:a/b:pull"')).toEqual({ realm: 'https://auth.example/token', service: 'reg', scope: 'repository:a/b:pull' });
    expect(await client.manifest(name('skills/private:1.0.0'))).toEqual({ digest: sha256(manifest), bytes: manifest });
    expect(await client.blob(name('skills/private:1.0.0'), sha256(blob), blob.length)).toEqual(blob);
    expect(tokenRequests).toEqual(['/token?service=fake&scope=repository%3Askills%2Fprivate%3Apull']);
  });

  it('maps the registry’s failures to 401, 429 with its Retry-After, 502 and 504', async () => {
    expect(await failure(client.manifest(name('skills/basic:1.0.0')))).toMatchObject({ status: 401 });
    expect(await failure(client.manifest(name('skills/missing:1.0.0')))).toMatchObject({ status: 404 });
    expect(await failure(client.manifest(name('skills/busy:1.0.0')))).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
    expect(await failure(client.manifest(name('skills/broken:1.0.0')))).toMatchObject({ status: 502, message: `pulling ${host}/skills/broken:1.0.0: the registry answered HTTP 500` });
    expect(await failure(client.manifest(name('skills/slow:1.0.0')))).toMatchObject({ status: 504 });
    expect(await failure(createOciClient().manifest(parseOciName('127.0.0.1:1/skills/x:1.0.0') as OciName))).toMatchObject({ status: 502, message: 'pulling 127.0.0.1:1/skills/x:1.0.0: the registry could not be reached' });
  });

  it('refuses a manifest or blob whose bytes do not match their digest (502)', async () => {
    expect(await failure(client.manifest(name('skills/lying:1.0.0')))).toMatchObject({ status: 502, message: expect.stringMatching(/does not have the digest it should/) as string });
    expect(await failure(client.manifest(name(`skills/lying@${sha256('other')}`)))).toMatchObject({ status: 502 });
    expect(await failure(client.blob(name('skills/lying:1.0.0'), sha256(blob), blob.length))).toMatchObject({ status: 502, message: expect.stringMatching(/does not match its digest/) as string });
  });

  it('pushes a manifest by digest and tells whether the registry indexed its subject; lists referrers, undefined where the API is missing', async () => {
    expect(await client.push(name(`skills/modern@${sha256(manifest)}`), { blobs: [], manifest })).toEqual({ digest: sha256(manifest), subjectIndexed: true });
    expect(await client.referrers(name('skills/modern:1.0.0'), sha256('subject'))).toEqual(referrerIndex);
    expect(referrerAccepts).toEqual(['application/vnd.oci.image.index.v1+json']);
    expect(await client.referrers(name('skills/old:1.0.0'), sha256('subject'))).toBeUndefined();
    expect(await failure(client.referrers(name('skills/modern:1.0.0'), sha256('broken')))).toMatchObject({ status: 502 });
  });
});

describe('the OCI distribution client with stored logins and a token service', () => {
  const password = 'pa:ss-word';
  const seen: { method: string; authorization: string; body: string }[] = [];
  let server: Server;
  let host: string;
  const manifest = Buffer.from('{"schemaVersion":2,"private":true}');
  const name = (reference: string): OciName => parseOciName(`${host}/${reference}`) as OciName;
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as { status: number; message: string });
  const login = (found: RegistryCredential | undefined) => createOciClient({ credentials: { find: () => Promise.resolve(found) } });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://x');
        const body = Buffer.concat(chunks).toString();
        const authorization = request.headers.authorization ?? '';
        if (url.pathname === '/token') {
          seen.push({ method: request.method ?? '', authorization, body });
          const form = new URLSearchParams(body);
          const byPassword = authorization === `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` && url.searchParams.get('scope') === 'repository:skills/private:pull';
          const byRefresh = request.method === 'POST' && form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === 'refresh-me' && form.get('scope') === 'repository:skills/private:pull';
          if (!byPassword && !byRefresh) return response.writeHead(401).end();
          return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(byPassword ? { token: 'for-alice' } : { access_token: 'for-refresh' }));
        }
        if (authorization !== 'Bearer for-alice' && authorization !== 'Bearer for-refresh') {
          return response.writeHead(401, { 'www-authenticate': `Bearer realm="http://${host}/token",service="fake",scope="repository:skills/private:pull"` }).end();
        }
        response.writeHead(200, { 'docker-content-digest': sha256(manifest) }).end(manifest);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${String((server.address() as { port: number }).port)}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('exchanges a user name and password for a token with Basic authentication to the realm', async () => {
    expect((await login({ username: 'alice', password }).manifest(name('skills/private:1.0.0'))).digest).toBe(sha256(manifest));
    expect(seen.at(-1)).toMatchObject({ method: 'GET', authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` });
  });

  it('exchanges an identity token with the OAuth2 refresh-token grant', async () => {
    expect((await login({ identityToken: 'refresh-me' }).manifest(name('skills/private:1.0.0'))).digest).toBe(sha256(manifest));
    expect(seen.at(-1)).toMatchObject({ method: 'POST', authorization: '' });
  });

  it('answers 401 when the token service refuses the login, saying so without the secret', async () => {
    const refused = await failure(login({ username: 'alice', password: 'wrong-secret' }).manifest(name('skills/private:1.0.0')));
    expect(refused).toMatchObject({ status: 401, message: `pulling ${host}/skills/private:1.0.0 (token service): the registry refused the credentials stored for ${host} (HTTP 401); log in again with docker login or podman login` });
    expect(refused?.message).not.toContain('wrong-secret');
    expect(await failure(login(undefined).manifest(name('skills/private:1.0.0')))).toMatchObject({ status: 401, message: expect.stringContaining(`log in with docker login ${host}`) as string });
  });
});
