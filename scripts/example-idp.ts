/*
 * An OpenID provider for trying the platform on one machine: OIDC discovery, a JWKS, and a token
 * endpoint that signs a token for whoever asks (`/token?sub=alice&roles=admin&email=alice@example.com`).
 * It has no login at all, so it is for a laptop, never for a deployment.
 *   npm run example:idp   (then: npm run start:platform:oauth)
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const port = Number(process.env.PORT ?? 8091);
const issuer = `http://127.0.0.1:${port}`;
const audience = 'toolyard-platform';
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'example-idp', alg: 'ES256', use: 'sig' };

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', issuer);
  const send = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (url.pathname === '/.well-known/openid-configuration') return send(200, { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
  if (url.pathname === '/jwks') return send(200, { keys: [jwk] });
  if (url.pathname === '/token') {
    const sub = url.searchParams.get('sub');
    if (!sub) return send(400, { error: 'invalid_request', error_description: 'give sub=<subject>' });
    const claims: Record<string, unknown> = { roles: url.searchParams.getAll('roles').flatMap((value) => value.split(',')).filter(Boolean) };
    for (const name of ['email', 'name', 'preferred_username']) {
      const value = url.searchParams.get(name);
      if (value !== null) claims[name] = value;
    }
    void new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey)
      .then((token) => send(200, { access_token: token, token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  send(404, { error: 'not_found' });
});
server.listen(port, '127.0.0.1', () => console.log(`example OpenID provider at ${issuer} (audience ${audience}); tokens at ${issuer}/token?sub=alice&roles=admin`));
