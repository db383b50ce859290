import { describe, expect, it } from 'vitest';
import { formatMoney } from '../money.js';
import type { PricedModel } from '../pricing/catalog.js';
import { rateBlockOf } from '../pricing/rates.js';
import { modelLimitsOf, reservationBound } from './bounds.js';

const model = (vendor: 'vendor_a' | 'vendor_b' | 'vendor_c'): PricedModel => ({
  versionId: 'v',
  effectiveFrom: new Date(0),
  provider: 'p',
  model: 'm',
  block: rateBlockOf({ provider: 'p', model: 'm', [vendor]: { inputUsdPerMillion: '2', outputUsdPerMillion: '8' } }, {
    vendor_a: { webSearchUsdPerThousand: '10' },
    vendor_b: { webSearchUsdPerThousand: '25' },
    vendor_c: { groundingSearchUsdPerThousand: '35' },
  }),
  limits: { maxInputTokens: 200_000, maxOutputTokens: 8_000 },
});
const LIMITS = { maxInputTokens: 1_000_000, maxOutputTokens: 50_000 };
const bytes = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

describe('the reservation bound of a request', () => {
  it('bounds text input by the body size plus the provider prompt allowance, and output by the asked tokens times the choices', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 200, max_tokens: 999, n: 3 };
    const bound = reservationBound('openai', body, bytes(body), model('vendor_b'), LIMITS);
    expect(bound).toMatchObject({ inBound: bytes(body) + 4096, outBound: 600, toolBound: 0 });
    // (bytes + 4096) × 2 / 10^6 + 600 × 8 / 10^6
    expect(formatMoney(bound.maxCost)).toBe(formatMoney(((bytes(body) + 4096) * 2 + 600 * 8) / 1e6));
  });

  it('takes the whole input limit when the body references content or enables a search, and the model\'s output limit when none is asked', () => {
    const image = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] };
    expect(reservationBound('openai', image, bytes(image), model('vendor_b'), LIMITS)).toMatchObject({ inBound: 1_000_000, outBound: 50_000 });
    const inline = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] };
    expect(reservationBound('openai', inline, bytes(inline), model('vendor_b'), LIMITS).inBound).toBe(bytes(inline) + 4096);
    const file = { model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] };
    expect(reservationBound('openai', file, bytes(file), model('vendor_b'), LIMITS).inBound).toBe(1_000_000);
    const search = { model: 'm', messages: [], web_search_options: {} };
    const searched = reservationBound('openai', search, bytes(search), model('vendor_b'), LIMITS);
    expect(searched).toMatchObject({ inBound: 1_000_000, toolBound: 1 });
    expect(formatMoney(searched.maxCost)).toBe('2.425');
  });

  it('never bounds input above the model\'s input limit', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(500) }] };
    expect(reservationBound('openai', body, bytes(body), model('vendor_b'), { maxInputTokens: 100, maxOutputTokens: 10 }).inBound).toBe(100);
  });

  it('counts every Anthropic web search use, 10 where max_uses is unset', () => {
    const body = { model: 'm', max_tokens: 100, messages: [], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }, { type: 'web_search_20250305', name: 'again' }, { name: 'calculator', input_schema: {} }] };
    expect(reservationBound('anthropic', body, bytes(body), model('vendor_a'), LIMITS)).toMatchObject({ inBound: 1_000_000, outBound: 100, toolBound: 13 });
    const document = { model: 'm', messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }] };
    expect(reservationBound('anthropic', document, bytes(document), model('vendor_a'), LIMITS)).toMatchObject({ inBound: 1_000_000, outBound: 50_000, toolBound: 0 });
  });

  it('reads Gemini\'s generation config, file data, cached content and search tool', () => {
    const body = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 100, candidateCount: 2 } };
    expect(reservationBound('gemini', body, bytes(body), model('vendor_c'), LIMITS)).toMatchObject({ inBound: bytes(body) + 4096, outBound: 200, toolBound: 0 });
    const file = { contents: [{ parts: [{ fileData: { fileUri: 'gs://b/f', mimeType: 'application/pdf' } }] }] };
    expect(reservationBound('gemini', file, bytes(file), model('vendor_c'), LIMITS).inBound).toBe(1_000_000);
    const cached = { contents: [], cachedContent: 'cachedContents/1' };
    expect(reservationBound('gemini', cached, bytes(cached), model('vendor_c'), LIMITS).inBound).toBe(1_000_000);
    const grounded = { contents: [], tools: [{ googleSearch: {} }] };
    expect(reservationBound('gemini', grounded, bytes(grounded), model('vendor_c'), LIMITS)).toMatchObject({ inBound: 1_000_000, toolBound: 1 });
  });

  it('takes limits from the configuration, else the price table, else the defaults', () => {
    const defaults = { maxInputTokens: 1048576, maxOutputTokens: 65536 };
    const configured = { maxInputTokens: 1000, maxOutputTokens: 10 };
    expect(modelLimitsOf({ modelLimits: { 'p/m': configured }, defaultModelLimits: defaults }, model('vendor_b'))).toEqual(configured);
    expect(modelLimitsOf({ modelLimits: {}, defaultModelLimits: defaults }, model('vendor_b'))).toEqual({ maxInputTokens: 200_000, maxOutputTokens: 8_000 });
    expect(modelLimitsOf({ modelLimits: {}, defaultModelLimits: defaults }, { ...model('vendor_b'), limits: undefined })).toEqual(defaults);
  });
});
