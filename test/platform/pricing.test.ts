import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp } from '../../src/platform/app.js';
import { formatMoney } from '../../src/platform/money.js';
import { BASELINE } from '../../src/platform/pricing/baseline/baseline.generated.js';
import type { PricingCatalog } from '../../src/platform/pricing/catalog.js';
import { priceUsage } from '../../src/platform/pricing/rates.js';
import type { Catalog, Entry, VersionSummary } from '../../src/platform/pricing/schemas.js';
import { manualClock } from '../helpers/clock.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

const HOUR = 3_600_000;
const ENTRY = '/v1/budgets/pricing/entries';
type AuditEvents = { events: { action: string; target: { id: string | null } }[] };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('pricing catalog (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let catalog: PricingCatalog;
  const clock = manualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const tokens = { billing: '', auditor: '', admin: '', alice: '', directoryAdmin: '' };

  const get = <T>(url: string, token = tokens.billing) => platform.call<T>('GET', url, { token });
  const put = <T>(url: string, body: unknown, headers: Record<string, string> = {}, token = tokens.billing) => platform.call<T>('PUT', url, { token, body, headers });
  const del = <T>(url: string, headers: Record<string, string> = {}, token = tokens.billing) => platform.call<T>('DELETE', url, { token, headers });
  const catalogEtag = async () => {
    const response = await get<Catalog>('/v1/budgets/pricing');
    expect(response.status, response.text).toBe(200);
    return String(response.headers.etag);
  };
  const versions = async () => (await get<{ versions: VersionSummary[] }>('/v1/budgets/pricing/versions')).body.versions;

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({
      target,
      clock,
      config: { auth: oauthWith(provider) },
      extraRoutes: (_context, features) => {
        catalog = features.pricing.catalog;
      },
    });
    // the tests move the clock by hours to let staged versions take effect: tokens outlive that
    const exp = nowSeconds() + 24 * 3600;
    tokens.billing = await provider.mint({ sub: 'bill', claims: { roles: ['billingAdmin'] }, exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', claims: { roles: ['auditor'] }, exp });
    tokens.admin = await provider.mint({ sub: 'root', claims: { roles: ['admin'] }, exp });
    tokens.directoryAdmin = await provider.mint({ sub: 'dora', claims: { roles: ['directoryAdmin'] }, exp });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('publishes the built-in baseline at start, priced in the gateway catalog', async () => {
    const response = await get<Catalog>('/v1/budgets/pricing');
    expect(response.status).toBe(200);
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(response.body.effective_from).toBe('2026-07-24T18:23:43.000Z');
    expect(response.body.provider_aliases).toEqual({ google: 'gemini' });
    expect(response.body.spec).toEqual(BASELINE.spec);
    expect(await versions()).toEqual([{ id: response.body.id, effective_from: '2026-07-24T18:23:43.000Z', source: 'baseline', state: 'in_effect' }]);
    const priced = catalog.lookup('openai', 'gpt-4o');
    expect(priced?.versionId).toBe(response.body.id);
    expect(priced && formatMoney(priceUsage(priced.block, { input: 1000, output: 1000 }))).toBe('0.0125');
    // the alias: google → gemini
    expect(catalog.lookup('google', 'gemini-2.5-pro')?.provider).toBe('gemini');
    expect(catalog.resolve('google/gemini-2.5-pro')?.model).toBe('gemini-2.5-pro');
    expect(catalog.resolve('claude-sonnet-4-5')?.provider).toBe('anthropic');
    expect(catalog.lookup('openai', 'no-such-model')).toBeUndefined();
  });

  it('lets auditors read, and refuses writes to anyone but billing administrators', async () => {
    expect((await get('/v1/budgets/pricing', tokens.auditor)).status).toBe(200);
    expect((await get(`${ENTRY}/openai/gpt-4o`, tokens.auditor)).status).toBe(200);
    expect((await get('/v1/budgets/pricing', tokens.alice)).status).toBe(403);
    expect((await get('/v1/budgets/pricing/versions', tokens.directoryAdmin)).status).toBe(403);
    const body = { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '2' } };
    for (const token of [tokens.auditor, tokens.alice, tokens.directoryAdmin]) {
      const refused = await put<{ error: string }>(`${ENTRY}/openai/gpt-4o`, body, { 'if-match': '*' }, token);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/billingAdmin/);
      expect((await del(`${ENTRY}/openai/gpt-4o`, { 'if-match': '*' }, token)).status).toBe(403);
    }
    expect((await platform.call('GET', '/v1/budgets/pricing')).status).toBe(401);
    expect(catalog.lookup('openai', 'gpt-4o')?.block.rates.inputUsdPerMillion).toBe('2.50');
  });

  it('serves an entry with its own ETag, the model being the rest of the path', async () => {
    const response = await get<Entry>(`${ENTRY}/openai/gpt-4o`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(BASELINE.spec.entries.find((entry) => entry.provider === 'openai' && entry.model === 'gpt-4o'));
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(response.headers.etag).not.toBe(await catalogEtag());
    expect((await get(`${ENTRY}/openai/no-such-model`)).status).toBe(404);
    expect((await get(`${ENTRY}/nobody/gpt-4o`)).status).toBe(404);
  });

  it('checks an entry write in the contract order: 400, 428, then 412 with the current ETag', async () => {
    const url = `${ENTRY}/openai/gpt-4o`;
    const twoBlocks = await put<{ error: string }>(url, { vendor_a: { inputUsdPerMillion: '1', outputUsdPerMillion: '1' }, vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '1' } });
    expect(twoBlocks.status).toBe(400);
    expect(twoBlocks.body.error).toMatch(/exactly one rate block/);
    expect((await put(url, {}, { 'if-match': '*' })).status).toBe(400);
    const numeric = await put<{ error: string }>(url, { vendor_b: { inputUsdPerMillion: 2.5, outputUsdPerMillion: '10' } }, { 'if-match': '*' });
    expect(numeric.status).toBe(400);
    expect(numeric.body.error).toMatch(/inputUsdPerMillion/);
    const exponent = await put<{ error: string }>(url, { vendor_b: { inputUsdPerMillion: '1e3', outputUsdPerMillion: '10' } }, { 'if-match': '*' });
    expect(exponent.status).toBe(400);
    const tiers = { inputUsdPerMillion: '1', outputUsdPerMillion: '2', promptSizeTiers: [{ aboveTokens: 200, inputUsdPerMillion: '2', outputUsdPerMillion: '3' }, { aboveTokens: 100, inputUsdPerMillion: '3', outputUsdPerMillion: '4' }] };
    const unordered = await put<{ error: string }>(url, { vendor_b: tiers }, { 'if-match': '*' });
    expect(unordered.status).toBe(400);
    expect(unordered.body.error).toMatch(/promptSizeTiers\[1\]\.aboveTokens/);
    const unknown = await put<{ error: string }>(url, { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '1', bogusUsdPerMillion: '1' } }, { 'if-match': '*' });
    expect(unknown.status).toBe(400);

    const valid = { vendor_b: { inputUsdPerMillion: '3', outputUsdPerMillion: '12.5' } };
    const missing = await put<{ error: string }>(url, valid);
    expect(missing.status).toBe(428);
    expect(missing.body.error).toMatch(/If-Match/);
    const entryEtag = String((await get(url)).headers.etag);
    const stale = await put(url, valid, { 'if-match': '"0123456789abcdef"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe(entryEtag);
    // a new entry's stale answer carries the catalog's ETag
    const staleNew = await put(`${ENTRY}/openai/brand-new`, valid, { 'if-match': '"0123456789abcdef"' });
    expect(staleNew.status).toBe(412);
    expect(staleNew.headers.etag).toBe(await catalogEtag());
  });

  it('replaces an entry (200) and creates one (201), each write a new operator-dated version', async () => {
    const before = await get<Catalog>('/v1/budgets/pricing');
    const entryEtag = String((await get(`${ENTRY}/openai/gpt-4o`)).headers.etag);
    clock.advance(1000);
    const replaced = await put<Entry>(`${ENTRY}/openai/gpt-4o`, { vendor_b: { inputUsdPerMillion: '3', outputUsdPerMillion: '12.5' } }, { 'if-match': entryEtag });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual({ provider: 'openai', model: 'gpt-4o', vendor_b: { inputUsdPerMillion: '3.00', outputUsdPerMillion: '12.50' } });
    expect(replaced.headers.etag).toBe((await get(`${ENTRY}/openai/gpt-4o`)).headers.etag);
    // the new price is in effect on this replica at once
    expect(catalog.lookup('openai', 'gpt-4o')?.block.rates.inputUsdPerMillion).toBe('3.00');

    const after = await get<Catalog>('/v1/budgets/pricing');
    expect(after.body.id).not.toBe(before.body.id);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.effective_from).toBe(clock.now().toISOString());
    expect(after.body.spec.entries).toHaveLength(before.body.spec.entries.length);

    // a model with a slash, created with the catalog's ETag
    clock.advance(1000);
    const created = await put<Entry>(`${ENTRY}/openai/ft:gpt-4o/acme`, { vendor_b: { inputUsdPerMillion: '0.0000015', outputUsdPerMillion: '1' } }, { 'if-match': String(after.headers.etag) });
    expect(created.status, created.text).toBe(201);
    expect(created.body.model).toBe('ft:gpt-4o/acme');
    expect((await get<Entry>(`${ENTRY}/openai/ft:gpt-4o/acme`)).body.vendor_b?.inputUsdPerMillion).toBe('0.0000015');
    const entries = (await get<Catalog>('/v1/budgets/pricing')).body.spec.entries;
    const keys = entries.map((entry) => `${entry.provider}\u0000${entry.model}`);
    expect(keys).toEqual([...keys].sort());

    const listed = await versions();
    expect(listed.map((version) => [version.source, version.state])).toEqual([
      ['operator', 'in_effect'],
      ['operator', 'superseded'],
      ['baseline', 'superseded'],
    ]);
    const audit = await get<AuditEvents>('/v1/audit-events', tokens.admin);
    expect(audit.body.events.map((event) => event.action)).toEqual(expect.arrayContaining(['pricing.entry.replace', 'pricing.entry.create']));
  });

  it("keeps an entry's ETag while other entries change", async () => {
    const claude = String((await get(`${ENTRY}/anthropic/claude-sonnet-4-5`)).headers.etag);
    clock.advance(1000);
    const written = await put(`${ENTRY}/openai/gpt-4o-mini`, { vendor_b: { inputUsdPerMillion: '0.15', outputUsdPerMillion: '0.60' } }, { 'if-match': '*' });
    expect(written.status).toBe(200);
    expect((await get(`${ENTRY}/anthropic/claude-sonnet-4-5`)).headers.etag).toBe(claude);
    // the entry's ETag is still accepted, the catalog's older one is not
    clock.advance(1000);
    const ok = await put(`${ENTRY}/anthropic/claude-sonnet-4-5`, { vendor_a: { inputUsdPerMillion: '3', outputUsdPerMillion: '15' } }, { 'if-match': claude });
    expect(ok.status).toBe(200);
  });

  it('deletes an entry (204): unpriceable at once, 404 when gone, 428 without If-Match, 412 when stale', async () => {
    const url = `${ENTRY}/openai/gpt-4o-mini`;
    expect(catalog.lookup('openai', 'gpt-4o-mini')).toBeDefined();
    expect((await del(url)).status).toBe(428);
    const stale = await del(url, { 'if-match': '"0123456789abcdef"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe((await get(url)).headers.etag);
    clock.advance(1000);
    const deleted = await del(url, { 'if-match': String((await get(url)).headers.etag) });
    expect(deleted.status, deleted.text).toBe(204);
    expect(deleted.headers.etag).toBe(await catalogEtag());
    expect(catalog.lookup('openai', 'gpt-4o-mini')).toBeUndefined();
    expect((await get(url)).status).toBe(404);
    expect((await del(url, { 'if-match': '*' })).status).toBe(404);
    const audit = await get<AuditEvents>('/v1/audit-events', tokens.admin);
    expect(audit.body.events.find((event) => event.action === 'pricing.entry.delete')?.target.id).toBe('openai/gpt-4o-mini');
  });

  it('stages a future catalog (201): every pricing write 409 until it takes effect, when it replaces the catalog', async () => {
    const current = await get<Catalog>('/v1/budgets/pricing');
    const at = new Date(clock.now().getTime() + HOUR).toISOString();
    const spec = { entries: [{ provider: 'openai', model: 'gpt-5', vendor_b: { inputUsdPerMillion: '1.25', outputUsdPerMillion: '10' } }], tools: {} };
    expect((await put('/v1/budgets/pricing', { provider_aliases: {}, spec, effective_from: at })).status).toBe(428);
    const past = await put<{ error: string }>('/v1/budgets/pricing', { provider_aliases: {}, spec, effective_from: '2020-01-01T00:00:00Z' }, { 'if-match': '*' });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/effective_from/);
    const staged = await put<Catalog>('/v1/budgets/pricing', { provider_aliases: {}, spec, effective_from: at }, { 'if-match': String(current.headers.etag) });
    expect(staged.status, staged.text).toBe(201);
    expect(staged.headers.location).toBe(`/v1/budgets/pricing/versions/${at}`);
    expect((await versions())[0]).toMatchObject({ effective_from: at, state: 'staged', source: 'operator' });

    const conflicts = [
      await put<{ error: string }>(`${ENTRY}/openai/gpt-4o`, { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '1' } }, { 'if-match': '*' }),
      await del<{ error: string }>(`${ENTRY}/openai/gpt-4o`, { 'if-match': '*' }),
      await put<{ error: string }>('/v1/budgets/pricing', { provider_aliases: {}, spec }, { 'if-match': '*' }),
      await put<{ error: string }>('/v1/budgets/pricing', { provider_aliases: {}, spec, effective_from: new Date(clock.now().getTime() + 2 * HOUR).toISOString() }, { 'if-match': '*' }),
    ];
    for (const conflict of conflicts) {
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toMatch(/staged/);
    }
    // the current catalog stays in effect until the staged time
    expect((await get<Catalog>('/v1/budgets/pricing')).body.id).toBe(current.body.id);
    expect(catalog.lookup('openai', 'gpt-4o')).toBeDefined();

    clock.advance(HOUR);
    const now = await get<Catalog>('/v1/budgets/pricing');
    expect(now.body.id).toBe(staged.body.id);
    expect(now.headers.etag).not.toBe(current.headers.etag);
    expect(catalog.lookup('openai', 'gpt-4o')).toBeUndefined();
    expect(catalog.lookup('openai', 'gpt-5')?.versionId).toBe(staged.body.id);
    // in effect now: it cannot be deleted, and writes are open again
    expect((await del(`/v1/budgets/pricing/versions/${at}`)).status).toBe(409);
    clock.advance(1000);
    expect((await put(`${ENTRY}/openai/gpt-5`, { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '8' } }, { 'if-match': '*' })).status).toBe(200);
  });

  it('deletes a staged version (204), which clears the 409', async () => {
    const at = new Date(clock.now().getTime() + HOUR);
    const body = { provider_aliases: {}, spec: { entries: [], tools: {} }, effective_from: at.toISOString() };
    expect((await put('/v1/budgets/pricing', body, { 'if-match': await catalogEtag() })).status).toBe(201);
    expect((await put(`${ENTRY}/openai/gpt-5`, { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '8' } }, { 'if-match': '*' })).status).toBe(409);

    expect((await del('/v1/budgets/pricing/versions/yesterday')).status).toBe(400);
    expect((await del(`/v1/budgets/pricing/versions/${new Date(at.getTime() + 1).toISOString()}`)).status).toBe(404);
    expect((await del(`/v1/budgets/pricing/versions/${at.toISOString()}`, {}, tokens.auditor)).status).toBe(403);
    // compared as instants: the same time written with an offset
    const offset = new Date(at.getTime() + 2 * HOUR).toISOString().replace('Z', '+02:00');
    const removed = await del(`/v1/budgets/pricing/versions/${encodeURIComponent(offset)}`);
    expect(removed.status, removed.text).toBe(204);
    expect((await versions()).some((version) => version.state === 'staged')).toBe(false);
    expect((await put(`${ENTRY}/openai/gpt-5`, { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '8' } }, { 'if-match': '*' })).status).toBe(200);
    clock.advance(HOUR);
    expect(catalog.lookup('openai', 'gpt-5')).toBeDefined();
  });

  it('serves one version by its effective_from, and 404 for none', async () => {
    const [newest] = await versions();
    if (!newest) throw new Error('no versions');
    const version = await get<{ id: string; state: string; source: string; spec: unknown }>(`/v1/budgets/pricing/versions/${newest.effective_from}`);
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ id: newest.id, state: 'in_effect', source: 'operator' });
    expect((await get('/v1/budgets/pricing/versions/2001-01-01T00:00:00Z')).status).toBe(404);
  });
});

describe('pricing catalog without a baseline', () => {
  it('has no catalog (404, every model unpriceable) until an operator publishes one without If-Match', async () => {
    let catalog: PricingCatalog | undefined;
    const platform = await createTestPlatform({ config: { pricing: { baseline: false } }, extraRoutes: (_context, features) => (catalog = features.pricing.catalog) });
    try {
      expect((await platform.call('GET', '/v1/budgets/pricing')).status).toBe(404);
      expect(catalog?.lookup('openai', 'gpt-4o')).toBeUndefined();
      const entry = await platform.call('PUT', `${ENTRY}/openai/gpt-4o`, { body: { vendor_b: { inputUsdPerMillion: '1', outputUsdPerMillion: '1' } }, headers: { 'if-match': '*' } });
      expect(entry.status).toBe(404);
      const spec = { entries: [{ provider: 'openai', model: 'gpt-4o', vendor_b: { inputUsdPerMillion: '2.5', outputUsdPerMillion: '10' } }], tools: { vendor_b: { webSearchUsdPerThousand: '25' } } };
      const published = await platform.call<Catalog>('PUT', '/v1/budgets/pricing', { body: { provider_aliases: { oai: 'openai' }, spec } });
      expect(published.status, published.text).toBe(200);
      expect(published.body.spec.tools).toEqual({ vendor_b: { webSearchUsdPerThousand: '25.00' } });
      expect(catalog?.lookup('oai', 'gpt-4o')?.block.toolUsdPerThousand).toBe('25.00');
      const duplicate = await platform.call<{ error: string }>('PUT', '/v1/budgets/pricing', { body: { provider_aliases: {}, spec: { entries: [...spec.entries, ...spec.entries], tools: {} } }, headers: { 'if-match': '*' } });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body.error).toMatch(/twice/);
    } finally {
      await platform.dispose();
    }
  });

  it('resolves a model named by several providers to the preferred one, then in provider byte order; 412 on a stale catalog write', async () => {
    let catalog: PricingCatalog | undefined;
    const platform = await createTestPlatform({ config: { pricing: { baseline: false } }, extraRoutes: (_context, features) => (catalog = features.pricing.catalog) });
    try {
      const rates = { inputUsdPerMillion: '1', outputUsdPerMillion: '2' };
      const spec = {
        entries: [
          { provider: 'zeta', model: 'shared', vendor_b: rates },
          { provider: 'alpha', model: 'shared', vendor_b: rates },
          { provider: 'openai', model: 'gpt-4o', vendor_b: rates },
        ],
        tools: {},
      };
      const published = await platform.call<Catalog>('PUT', '/v1/budgets/pricing', { body: { provider_aliases: { oai: 'openai' }, spec } });
      expect(published.status, published.text).toBe(200);
      expect(published.body.spec.entries.map((entry) => entry.provider)).toEqual(['alpha', 'openai', 'zeta']);
      expect(catalog?.resolve('shared')?.provider).toBe('alpha');
      expect(catalog?.resolve('shared', 'zeta')?.provider).toBe('zeta');
      expect(catalog?.resolve('oai/gpt-4o')?.provider).toBe('openai');
      expect(catalog?.resolve('nobody/gpt-4o')).toBeUndefined();

      const stale = await platform.call('PUT', '/v1/budgets/pricing', { body: { provider_aliases: {}, spec }, headers: { 'if-match': '"0123456789abcdef"' } });
      expect(stale.status).toBe(412);
      expect(stale.headers.etag).toBe(published.headers.etag);
      expect((await platform.call('GET', '/v1/budgets/pricing/versions/not-a-time')).status).toBe(400);
    } finally {
      await platform.dispose();
    }
  });

  it('an operator write opts out of later baselines for good', async () => {
    const platform = await createTestPlatform({ config: { pricing: { baseline: true } } });
    try {
      const etag = String((await platform.call('GET', '/v1/budgets/pricing')).headers.etag);
      expect((await platform.call('DELETE', `${ENTRY}/openai/gpt-4o`, { headers: { 'if-match': etag } })).status).toBe(204);
      // a later start with a newer built-in baseline: take the published baseline away so that the built-in one is newer
      await platform.database.db.deleteFrom('pricing_versions').where('source', '=', 'baseline').execute();
      const restarted = await buildPlatformApp({ config: platform.config, database: platform.database, logger: silentLogger });
      try {
        const versions = await platform.database.db.selectFrom('pricing_versions').select('source').execute();
        expect(versions.map((version) => version.source)).toEqual(['operator']);
        expect(restarted.features.pricing.catalog.lookup('openai', 'gpt-4o')).toBeUndefined();
      } finally {
        await restarted.close();
      }
    } finally {
      await platform.dispose();
    }
  });

  it("refuses an entry whose rate block does not fit its configured provider's wire format (400 naming both)", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'toolyard-pricing-'));
    const apiKeyFile = join(folder, 'upstream.key');
    await writeFile(apiKeyFile, 'sk-test');
    const platform = await createTestPlatform({
      config: { llmGateway: { providers: [{ name: 'openai', wireFormat: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyFile }] } },
    });
    try {
      const anthropicBlock = { vendor_a: { inputUsdPerMillion: '3', outputUsdPerMillion: '15' } };
      const refused = await platform.call<{ error: string }>('PUT', `${ENTRY}/openai/gpt-4o`, { body: anthropicBlock, headers: { 'if-match': '*' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/vendor_a.*provider "openai".*vendor_b/);
      // a provider no upstream is configured for takes any block
      expect((await platform.call('PUT', `${ENTRY}/bedrock/claude`, { body: anthropicBlock, headers: { 'if-match': '*' } })).status).toBe(201);
    } finally {
      await platform.dispose();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
