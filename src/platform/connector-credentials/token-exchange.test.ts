import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialError } from './credentials.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './token-endpoint-testing.js';
import { createTokenExchanger, type ExchangeRequest, type TokenExchangeBlock } from './token-exchange.js';

let endpoint: FakeTokenEndpoint;
beforeAll(async () => {
  endpoint = await startFakeTokenEndpoint({ id: 'gateway', secret: 's3cr3t' });
});
afterAll(() => endpoint.close());

function settableClock(start = Date.parse('2026-11-25T16:00:00.000Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
}

function block(overrides: Partial<TokenExchangeBlock> = {}): TokenExchangeBlock {
  return {
    audience: 'https://mcp.example.com',
    client_id: 'gateway',
    client_secret: { cluster_secret: null, managed_secret_id: '00000000-0000-4000-8000-000000000001' },
    external_token_header_name: null,
    provider_id: null,
    scopes: ['tools.read', 'tools.call'],
    subject_token_type: 'access_token',
    token_url: endpoint.url,
    ...overrides,
  };
}

function request(overrides: Partial<ExchangeRequest> = {}): ExchangeRequest {
  return { connectorId: 'c1', block: block(), allowPrivateIps: true, subjectToken: 'caller.jwt.one', clientSecret: () => Promise.resolve('s3cr3t'), ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<CredentialError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CredentialError);
  return error as CredentialError;
}

describe('RFC 8693 token exchange', () => {
  it('posts the token-exchange form with client_secret_basic and returns the issued token', async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    const before = endpoint.received.length;
    const token = await exchanger.exchange(request());
    expect(token).toMatch(/^issued-\d+$/);
    const sent = endpoint.received[before];
    expect(sent?.basic).toEqual({ clientId: 'gateway', secret: 's3cr3t' });
    expect(sent?.form).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'caller.jwt.one',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'https://mcp.example.com',
      scope: 'tools.read tools.call',
    });
  });

  it('sends client_id in the form when no client secret is set, and the subject token type as a URN', async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    const before = endpoint.received.length;
    await exchanger.exchange(request({ block: block({ client_id: 'public', client_secret: null, audience: null, scopes: [], subject_token_type: 'id_token' }), clientSecret: () => Promise.resolve(undefined) }));
    const sent = endpoint.received[before];
    expect(sent?.basic).toBeUndefined();
    expect(sent?.form).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'caller.jwt.one',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      client_id: 'public',
    });
  });

  it('reuses a token per connector and caller token until 30 s before it expires', async () => {
    const clock = settableClock();
    const exchanger = createTokenExchanger({ clock });
    let secretReads = 0;
    const counted = (overrides: Partial<ExchangeRequest> = {}) => request({ clientSecret: () => Promise.resolve((secretReads++, 's3cr3t')), ...overrides });
    const first = await exchanger.exchange(counted());
    clock.advance(89);
    expect(await exchanger.exchange(counted())).toBe(first);
    expect(secretReads).toBe(1);

    const otherCaller = await exchanger.exchange(counted({ subjectToken: 'caller.jwt.two' }));
    const otherConnector = await exchanger.exchange(counted({ connectorId: 'c2' }));
    expect(new Set([first, otherCaller, otherConnector]).size).toBe(3);

    clock.advance(2); // 91 s after the first exchange: inside the last 30 s of its 120 s
    const renewed = await exchanger.exchange(counted());
    expect(renewed).not.toBe(first);
  });

  it('does not keep a token whose answer gives no expires_in', async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    endpoint.expiresIn = null;
    try {
      const first = await exchanger.exchange(request());
      expect(await exchanger.exchange(request())).not.toBe(first);
    } finally {
      endpoint.expiresIn = 120;
    }
  });

  it("names the endpoint's error and description, never the secret or the caller's token", async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    const rejected = await failure(exchanger.exchange(request({ subjectToken: 'rejected' })));
    expect(rejected.message).toBe(`token exchange at ${endpoint.url}: invalid_grant: the subject token is not valid here`);

    const badClient = await failure(exchanger.exchange(request({ clientSecret: () => Promise.resolve('wrong-secret') })));
    expect(badClient.message).toBe(`token exchange at ${endpoint.url}: invalid_client: client authentication failed`);
    expect(badClient.message).not.toContain('wrong-secret');

    // an endpoint that echoes what it got still cannot make the message carry a secret or the token
    const echoed = await failure(exchanger.exchange(request({ subjectToken: 'echo:caller-token-value' })));
    expect(echoed.message).toMatch(/invalid_request/);
    expect(echoed.message).not.toContain('caller-token-value');
    expect(echoed.message).not.toContain('s3cr3t');
  });

  it('refuses a token endpoint on a private address unless the connector allows private IPs', async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    const before = endpoint.received.length;
    const refused = await failure(exchanger.exchange(request({ allowPrivateIps: false })));
    expect(refused.message).toMatch(/private address 127\.0\.0\.1; set allow_private_ips: true/);
    expect(endpoint.received.length).toBe(before);
  });

  it('says when the endpoint cannot be reached, and when a client secret has no client id', async () => {
    const exchanger = createTokenExchanger({ clock: settableClock() });
    const unreachable = await failure(exchanger.exchange(request({ block: block({ token_url: 'http://127.0.0.1:1/token' }) })));
    expect(unreachable.message).toBe('token exchange at http://127.0.0.1:1/token: the token endpoint could not be reached');
    const noClient = await failure(exchanger.exchange(request({ block: block({ client_id: null }) })));
    expect(noClient.message).toMatch(/client_secret is set but client_id is not/);
  });
});
