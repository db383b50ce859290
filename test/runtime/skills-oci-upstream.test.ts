import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';

describe('the local API: installing from an OCI registry that fails', () => {
  let runtime: TestRuntime;
  let server: Server;
  let host: string;
  const answers: Record<string, { status: number; headers?: Record<string, string>; body?: string }> = {
    private: { status: 401 },
    busy: { status: 429, headers: { 'retry-after': '30' } },
    broken: { status: 503 },
    image: { status: 200, body: '{"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:' + '0'.repeat(64) + '","size":2},"layers":[]}' },
  };
  const install = (repository: string) =>
    runtime.app.http.inject({ method: 'POST', url: `${API}/skills`, payload: { name: `${host}/skills/${repository}:1.0.0`, clients: ['claude-code'] } });

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
    server = createServer((request, response) => {
      const answer = answers[(request.url ?? '').split('/')[3] ?? ''] ?? { status: 404 };
      response.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${String((server.address() as { port: number }).port)}`;
  });
  afterAll(async () => {
    await runtime.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 401 when the registry wants credentials, 404 for an unknown repository, 429 with its Retry-After, and 502 for a failing registry', async () => {
    expect((await install('private')).statusCode).toBe(401);
    expect((await install('missing')).statusCode).toBe(404);
    const busy = await install('busy');
    expect({ status: busy.statusCode, retryAfter: busy.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '30' });
    expect(await install('broken')).toMatchObject({ statusCode: 502, body: JSON.stringify({ error: `pulling ${host}/skills/broken:1.0.0: the registry answered HTTP 503` }) });
  });

  it('refuses an artifact of another kind (a container image) with 400', async () => {
    const refused = await install('image');
    expect({ status: refused.statusCode, body: refused.json<unknown>() }).toEqual({
      status: 400,
      body: { error: `${host}/skills/image:1.0.0 is not a skill (its artifact type is none, not dev.toolyard.skills.v1)` },
    });
  });
});
