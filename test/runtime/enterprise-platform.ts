import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../../src/platform/app.js';
import { startHttpServer, sendJson } from '../../src/runtime/registry/registry-testing.js';
import { platformConfig } from '../platform/helpers.js';

export interface SigningKey {
  kid: string;
  privateKeyFile: string;
}

export async function signingKeys(...kids: string[]): Promise<SigningKey[]> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-signing-'));
  return Promise.all(
    kids.map(async (kid) => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const privateKeyFile = join(directory, `${kid}.pem`);
      await writeFile(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      return { kid, privateKeyFile };
    }),
  );
}

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
}

/**
 * A real platform app (anonymous mode, its own database) behind a loopback port the runtime fetches
 * from. The front can play the network's part: `down` drops every connection, `tamper` alters the
 * envelope on its way, `token` asks for a bearer token as a gateway in front of a platform would.
 */
export interface PlatformFront {
  url: string;
  mode: 'up' | 'down' | 'tamper';
  token: string | undefined;
  seen: SeenRequest[];
  putDirectives: (body: object) => Promise<void>;
  /** Restarts the platform on the same database with another signing key set (the first signs). */
  restartWith: (keys: SigningKey[]) => Promise<void>;
  close: () => Promise<void>;
}

export async function startPlatformFront(options: { clock: Clock; keys: SigningKey[] }): Promise<PlatformFront> {
  const target = testDatabaseTargets()[0];
  if (!target) throw new Error('no database target');
  const created = await target.create();
  const open = (keys: SigningKey[]) => buildPlatformApp({ config: platformConfig({ signing: { keys } }), database: created.database as never, clock: options.clock, logger: silentLogger });
  let platform: PlatformApp = await open(options.keys);

  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    front.seen.push({ path: request.url ?? '', headers: request.headers });
    if (front.mode === 'down') {
      request.socket.destroy();
      return;
    }
    if (front.token !== undefined && request.headers.authorization !== `Bearer ${front.token}`) {
      sendJson(response, { error: 'a bearer token is required' }, 401);
      return;
    }
    const tamper = front.mode === 'tamper' && request.url === '/v1/configuration';
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !(tamper && name === 'if-none-match'))) as Record<string, string>;
    const answer = await platform.http.inject({ method: 'GET', url: request.url ?? '/', headers });
    let body = answer.body;
    if (tamper) {
      const envelope = JSON.parse(body) as { config: Record<string, unknown> };
      delete envelope.config.non_registry_servers;
      body = JSON.stringify(envelope);
    }
    const kept = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => ['content-type', 'etag', 'cache-control'].includes(name))) as Record<string, string>;
    response.writeHead(answer.statusCode, kept).end(answer.statusCode === 304 ? undefined : body);
  };
  const server = await startHttpServer((request, response) => void forward(request, response));
  const front: PlatformFront = {
    url: server.url,
    mode: 'up',
    token: undefined,
    seen: [],
    putDirectives: async (body) => {
      const answer = await platform.http.inject({ method: 'PUT', url: '/v1/configuration/directives', headers: { 'if-match': '*' }, payload: body });
      if (answer.statusCode !== 200) throw new Error(`directives refused: ${answer.body}`);
    },
    restartWith: async (keys) => {
      await platform.close();
      platform = await open(keys);
    },
    close: async () => {
      await server.close();
      await platform.close();
      await created.drop();
    },
  };
  return front;
}

/** An MCP Registry API with one remote server, as the enterprise's registry. */
export async function startEnterpriseRegistry(): Promise<{ url: string; close: () => Promise<void> }> {
  return startHttpServer((request, response) => {
    if (!request.url?.startsWith('/v0.1/servers')) {
      sendJson(response, { error: 'not found' }, 404);
      return;
    }
    sendJson(response, {
      servers: [{ name: 'io.acme/corp-tool', version: '1.0.0', description: 'the company tool', remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }] }],
      metadata: {},
    });
  });
}
