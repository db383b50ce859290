/**
 * `npx tsx bench/pricing.ts`: what exact pricing costs the LLM gateway per request, on one core.
 *
 * Per request the gateway resolves the model in the catalog in effect, bounds its cost for the
 * reservation and prices the usage the provider reported. Measured over the built-in baseline: the entry
 * index lookup (a Map, as the catalog in effect keeps it), maxCost, and priceUsage of a usage with every
 * token kind, against the same sum in binary floating point (the baseline: what a gateway keeping money in
 * floats spends), measured in the same run. Per call in microseconds, median of 7 rounds. Writes
 * bench/results/pricing.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { BASELINE } from '../src/platform/pricing/baseline/baseline.generated.js';
import { maxCost, priceUsage, rateBlockOf, type RateBlock } from '../src/platform/pricing/rates.js';

const RESULTS = new URL('./results/pricing.json', import.meta.url);
const CALLS = 100_000;
const ROUNDS = 7;

const entries = new Map(BASELINE.spec.entries.map((entry) => [`${entry.provider}\u0000${entry.model}`, entry]));
const names = BASELINE.spec.entries.map((entry) => [entry.provider, entry.model] as const);
const gemini = BASELINE.spec.entries.find((entry) => entry.model === 'gemini-2.5-pro');
if (!gemini) throw new Error('gemini-2.5-pro is not in the baseline');
const block: RateBlock = rateBlockOf(gemini, BASELINE.spec.tools);
const usage = { input: 144500, cachedInput: 96000, audioInput: 6000, cachedAudioInput: 4000, output: 1200, reasoning: 800, audioOutput: 10, toolCalls: 1, promptTokens: 250000 };
const rate = (name: string) => Number(block.rates[name] ?? block.rates.inputUsdPerMillion);

/** The same sum in floats: the baseline. */
function floatPrice(): number {
  const input = rate('inputUsdPerMillion');
  const output = rate('outputUsdPerMillion');
  return (
    (usage.input * input + usage.cachedInput * rate('cachedInputUsdPerMillion') + usage.audioInput * input + usage.cachedAudioInput * input + (usage.output + usage.reasoning + usage.audioOutput) * output) / 1e6 +
    (usage.toolCalls * 35) / 1e3
  );
}

function perCall(work: (index: number) => unknown): number {
  const rounds: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (let index = 0; index < CALLS; index++) if (work(index) !== undefined) sink++;
    rounds.push(((performance.now() - start) * 1000) / CALLS);
  }
  if (sink < 0) console.log(sink);
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? 0;
}

const figures = {
  entry_index_lookup_us: perCall((index) => {
    const [provider, model] = names[index % names.length] ?? ['', ''];
    return entries.get(`${provider}\u0000${model}`);
  }),
  max_cost_us: perCall(() => maxCost(block, 100_000, 8192, 1)),
  price_usage_us: perCall(() => priceUsage(block, usage)),
  float_price_us: perCall(() => floatPrice()),
};
const result = { date: new Date().toISOString(), node: process.version, calls: CALLS, rounds: ROUNDS, catalog_entries: names.length, ...figures };
console.table(figures);
await mkdir(new URL('.', RESULTS), { recursive: true });
await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
