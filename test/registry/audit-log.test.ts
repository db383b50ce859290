import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { AUDIT_EVENTS, createAuditLog, type AuditRecord } from '../../src/registry/audit/index.js';
import { startLiveRegistry, startOidcProvider, type LiveRegistry, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestRegistry } from '../helpers/registry.js';

/*
 * The audit log end to end: the real server on a port with tokens of a local OpenID provider, audit to
 * a temporary file. Every audited operation leaves exactly one record with the documented fields; a
 * denied write, a denied read and refused tokens are audited; no token or secret reaches the file.
 */

const GIT_PASSWORD = 'git-pa55word-never-in-the-audit-log';
const ROLES = {
  superAdmin: [{ role: 'super-admin' }],
  manageSources: [{ role: 'admin' }],
  manageRegistries: [{ role: 'admin' }],
  manageEntries: [{ role: 'writer' }],
};

let provider: OidcProvider;
let registry: LiveRegistry;
let dir: string;
let auditFile: string;
const tokens: Record<'root' | 'reader', string> = { root: '', reader: '' };
let forged = '';
let requestCounter = 0;

async function call(who: keyof typeof tokens | 'nobody' | 'forged', method: string, path: string, body?: unknown): Promise<{ status: number; requestId: string }> {
  requestCounter += 1;
  const requestId = `audit-test-${requestCounter}`;
  const token = who === 'nobody' ? undefined : who === 'forged' ? forged : tokens[who];
  const response = await registry.call(method, path, { ...(token !== undefined && { token }), ...(body !== undefined && { body }), headers: { 'x-request-id': requestId } });
  expect(response.headers.get('x-request-id')).toBe(requestId);
  return { status: response.status, requestId };
}

async function records(): Promise<AuditRecord[]> {
  const text = await readFile(auditFile, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);
}

async function recordsOf(requestId: string): Promise<AuditRecord[]> {
  return (await records()).filter((record) => record.requestId === requestId);
}

/** The one record of a request, with its common fields checked. */
async function onlyRecord(requestId: string): Promise<AuditRecord> {
  const found = await recordsOf(requestId);
  expect(found).toHaveLength(1);
  const record = found[0] as AuditRecord;
  expect(Number.isNaN(Date.parse(record.time))).toBe(false);
  expect(record.sourceIp).toBe('127.0.0.1');
  expect(AUDIT_EVENTS).toContain(record.event);
  return record;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolyard-audit-'));
  auditFile = join(dir, 'audit.jsonl');
  await writeFile(join(dir, 'git-password'), `${GIT_PASSWORD}\n`);
  provider = await startOidcProvider({ audience: 'api://registry' });
  tokens.root = await provider.mint({ sub: 'root-user', claims: { role: 'super-admin' } });
  tokens.reader = await provider.mint({ sub: 'reader-user', claims: { org: 'acme' } });
  forged = await provider.mint({ sub: 'mallory', claims: { role: 'super-admin' }, forge: true });
  registry = await startLiveRegistry({
    config: {
      auth: {
        mode: 'oauth',
        oauth: { resourceUrl: 'https://registry.example.com', providers: [{ name: 'corp', issuerUrl: provider.issuer, audience: provider.audience }] },
        authz: { roles: ROLES },
      },
      audit: { enabled: true, file: auditFile },
    },
  });
});

afterAll(async () => {
  expect(await registry.serverErrors()).toEqual([]);
  await registry.close();
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

describe('audit log', () => {
  it('records each admin write once, with the event, outcome, subject and resource', async () => {
    const steps: [string, string, unknown, number, Partial<AuditRecord>][] = [
      ['PUT', '/v1/sources/pub', { managed: {}, claims: { org: 'acme' } }, 201, { event: 'source.create', resourceType: 'source', resourceName: 'pub' }],
      ['PUT', '/v1/sources/pub', { managed: {}, claims: { org: 'acme' } }, 200, { event: 'source.update', resourceType: 'source', resourceName: 'pub' }],
      [
        'PUT',
        '/v1/sources/upstream',
        { git: { repository: 'https://git.example.com/catalog.git', auth: { username: 'bot', passwordFile: join(dir, 'git-password') } } },
        201,
        { event: 'source.create', resourceType: 'source', resourceName: 'upstream' },
      ],
      ['POST', '/v1/sources/upstream/sync', undefined, 202, { event: 'source.sync', resourceType: 'source', resourceName: 'upstream' }],
      ['PUT', '/v1/registries/main', { sources: ['pub'], claims: { org: 'acme' } }, 201, { event: 'registry.create', resourceType: 'registry', resourceName: 'main' }],
      ['PUT', '/v1/registries/main', { sources: ['pub', 'upstream'], claims: { org: 'acme' } }, 200, { event: 'registry.update', resourceType: 'registry', resourceName: 'main' }],
      [
        'POST',
        '/v1/entries',
        { server: { name: 'io.test/one', version: '1.0.0', description: 'one' }, claims: { org: 'acme' } },
        201,
        { event: 'entry.publish', resourceType: 'server', resourceName: 'io.test/one', version: '1.0.0' },
      ],
      ['GET', '/v1/entries/server/io.test%2Fone/claims', undefined, 200, { event: 'entry.claims.read', resourceType: 'server', resourceName: 'io.test/one' }],
      ['PUT', '/v1/entries/server/io.test%2Fone/claims', { claims: { org: 'acme', team: 'a' } }, 204, { event: 'entry.claims.update', resourceType: 'server', resourceName: 'io.test/one' }],
      ['DELETE', '/v1/entries/server/io.test%2Fone/versions/1.0.0', undefined, 204, { event: 'entry.delete', resourceType: 'server', resourceName: 'io.test/one', version: '1.0.0' }],
      ['DELETE', '/v1/registries/main', undefined, 204, { event: 'registry.delete', resourceType: 'registry', resourceName: 'main' }],
      ['DELETE', '/v1/sources/upstream', undefined, 204, { event: 'source.delete', resourceType: 'source', resourceName: 'upstream' }],
    ];
    for (const [method, path, body, expected, fields] of steps) {
      const { status, requestId } = await call('root', method, path, body);
      expect(status, `${method} ${path}`).toBe(expected);
      expect(await onlyRecord(requestId)).toMatchObject({ ...fields, outcome: 'success', subject: 'root-user', requestId, status: expected });
    }
  });

  it('keeps the documented field order and no reason on success', async () => {
    const { status, requestId } = await call('root', 'PUT', '/v1/registries/ordered', { sources: ['pub'] });
    expect(status).toBe(201);
    const line = (await readFile(auditFile, 'utf8')).split('\n').find((text) => text.includes(`"${requestId}"`)) ?? '';
    const record = JSON.parse(line) as AuditRecord;
    expect(Object.keys(record).slice(0, 8)).toEqual(['time', 'event', 'outcome', 'subject', 'resourceType', 'resourceName', 'requestId', 'sourceIp']);
    expect(record.reason).toBeUndefined();
  });

  it('records a failed write as a failure with a reason', async () => {
    const { status, requestId } = await call('root', 'DELETE', '/v1/sources/missing');
    expect(status).toBe(404);
    expect(await onlyRecord(requestId)).toMatchObject({ event: 'source.delete', outcome: 'failure', subject: 'root-user', resourceName: 'missing', status: 404, reason: 'not found' });
  });

  it('records a denied write with the role it lacked, named create or update by what exists', async () => {
    const create = await call('reader', 'PUT', '/v1/sources/new-one', { managed: {} });
    expect(create.status).toBe(403);
    expect(await onlyRecord(create.requestId)).toMatchObject({
      event: 'source.create',
      outcome: 'denied',
      subject: 'reader-user',
      resourceType: 'source',
      resourceName: 'new-one',
      status: 403,
      reason: expect.stringContaining('manageSources') as string,
    });
    const update = await call('reader', 'PUT', '/v1/sources/pub', { managed: {} });
    expect(update.status).toBe(403);
    expect(await onlyRecord(update.requestId)).toMatchObject({ event: 'source.update', outcome: 'denied', resourceName: 'pub' });
    const claims = await call('reader', 'GET', '/v1/entries/server/io.test%2Fone/claims');
    expect(claims.status).toBe(403);
    expect(await onlyRecord(claims.requestId)).toMatchObject({ event: 'entry.claims.read', outcome: 'denied', subject: 'reader-user' });
  });

  it('records a denied read that is no audited operation as authz.denied', async () => {
    const { status, requestId } = await call('reader', 'GET', '/v1/sources');
    expect(status).toBe(403);
    expect(await onlyRecord(requestId)).toMatchObject({ event: 'authz.denied', outcome: 'denied', subject: 'reader-user', resourceType: 'source', route: 'GET /v1/sources' });
  });

  it('records authentication failures once, without the token', async () => {
    const missing = await call('nobody', 'PUT', '/v1/sources/pub', { managed: {} });
    expect(missing.status).toBe(401);
    expect(await onlyRecord(missing.requestId)).toMatchObject({
      event: 'auth.failure',
      outcome: 'failure',
      subject: null,
      status: 401,
      route: 'PUT /v1/sources/:name',
      reason: expect.stringContaining('authentication required') as string,
    });
    const bad = await call('forged', 'GET', '/v1/sources');
    expect(bad.status).toBe(401);
    expect(await onlyRecord(bad.requestId)).toMatchObject({ event: 'auth.failure', outcome: 'failure', subject: null, reason: 'the token signature is not valid' });
  });

  it('leaves reads that are no audited operation out', async () => {
    const { status, requestId } = await call('root', 'GET', '/v1/sources');
    expect(status).toBe(200);
    expect(await recordsOf(requestId)).toEqual([]);
  });

  it('holds no token, no secret and no token claim value', async () => {
    const raw = await readFile(auditFile, 'utf8');
    expect(raw.length).toBeGreaterThan(0);
    for (const token of [tokens.root, tokens.reader, forged]) {
      expect(raw).not.toContain(token);
      // no piece of one either (a signature or a payload alone would still be a leak)
      for (const part of token.split('.')) expect(raw).not.toContain(part);
    }
    expect(raw).not.toContain(GIT_PASSWORD);
    expect(raw).not.toContain('super-admin');
    expect(raw).not.toMatch(/bearer [a-z0-9]/i);
  });
});

/** What `work` writes to stdout, kept from the terminal. */
async function captureStdout(work: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  try {
    await work();
  } finally {
    process.stdout.write = original;
  }
  return lines;
}

describe('audit log settings', () => {
  it('writes nothing when disabled (the default)', async () => {
    const app = await createTestRegistry();
    try {
      const lines = await captureStdout(async () => {
        expect((await app.send('PUT', '/v1/sources/quiet', { managed: {} })).status).toBe(201);
      });
      expect(lines.filter((line) => line.includes('"event"'))).toEqual([]);
    } finally {
      await app.dispose();
    }
  });

  it('audits anonymous mode with a null subject, to stdout when no file is given', async () => {
    const app = await createTestRegistry({ config: { audit: { enabled: true } } });
    try {
      const lines = await captureStdout(async () => {
        expect((await app.send('PUT', '/v1/sources/loud', { managed: {} })).status).toBe(201);
      });
      const audited = lines.filter((line) => line.includes('"event"')).map((line) => JSON.parse(line) as AuditRecord);
      expect(audited).toEqual([expect.objectContaining({ event: 'source.create', outcome: 'success', subject: null, resourceName: 'loud', sourceIp: '127.0.0.1' })]);
    } finally {
      await app.dispose();
    }
  });

  it('writes one line per record and cuts overlong values', () => {
    const lines: string[] = [];
    const log = createAuditLog({ clock: systemClock, stdout: (line) => lines.push(line) });
    log.record({ event: 'auth.failure', outcome: 'failure', subject: null, resourceType: null, resourceName: 'x'.repeat(5000), requestId: 'r', sourceIp: '::1' });
    log.close();
    log.record({ event: 'auth.failure', outcome: 'failure', subject: null, resourceType: null, resourceName: null, requestId: 'r2', sourceIp: '::1' });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect((JSON.parse(lines[0] ?? '') as AuditRecord).resourceName?.length).toBeLessThan(600);
  });
});
