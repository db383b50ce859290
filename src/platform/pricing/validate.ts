import { InvalidInputError } from '../../core/errors.js';
import { formatMoney } from '../money.js';
import { VENDORS, type Entry, type EntryBody, type PromptSizeTier, type Spec, type Tools, type Vendor } from './schemas.js';

/*
 * Checks the schema cannot express (exactly one block, tiers strictly increasing, unique entries) and
 * renders every rate in the contract's money form, so equal prices are stored, and hashed, alike.
 */

type Rates = Record<string, unknown>;

function normalizeRates(rates: Rates, field: string): Rates {
  const out: Rates = {};
  for (const [name, value] of Object.entries(rates)) {
    if (name === 'promptSizeTiers') out[name] = normalizeTiers(value as PromptSizeTier[], `${field}.promptSizeTiers`);
    else out[name] = typeof value === 'string' ? formatMoney(value) : value;
  }
  return out;
}

function normalizeTiers(tiers: PromptSizeTier[], field: string): PromptSizeTier[] {
  tiers.forEach((tier, index) => {
    const previous = tiers[index - 1];
    if (previous && tier.aboveTokens <= previous.aboveTokens) throw new InvalidInputError(`${field}[${index}].aboveTokens: must be greater than the tier before (${previous.aboveTokens})`);
  });
  return tiers.map((tier) => normalizeRates(tier, field) as PromptSizeTier);
}

/** The one rate block of an entry body, normalized; `formats` maps configured providers to the block their wire format takes. */
export function entryFrom(provider: string, model: string, body: EntryBody, field: string, formats: Readonly<Record<string, Vendor>>): Entry {
  const sent = VENDORS.filter((vendor) => body[vendor] !== undefined);
  if (sent.length !== 1) {
    throw new InvalidInputError(`${field}: exactly one rate block is required (vendor_a, vendor_b or vendor_c); ${sent.length === 0 ? 'none was sent' : `got ${sent.join(', ')}`}`);
  }
  const vendor = sent[0] as Vendor;
  const expected = formats[provider];
  if (expected !== undefined && expected !== vendor) throw new InvalidInputError(`${field}.${vendor}: provider "${provider}" is configured with a wire format priced by ${expected}`);
  if (model.length === 0) throw new InvalidInputError(`${field}.model: must not be empty`);
  return { model, provider, [vendor]: normalizeRates(body[vendor] ?? {}, `${field}.${vendor}`) };
}

const compareEntries = (a: Entry, b: Entry) => (a.provider === b.provider ? (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) : a.provider < b.provider ? -1 : 1);

export function sortEntries(entries: Entry[]): Entry[] {
  return [...entries].sort(compareEntries);
}

function normalizeTools(tools: Tools): Tools {
  return Object.fromEntries(Object.entries(tools).map(([vendor, rates]) => [vendor, normalizeRates(rates, `spec.tools.${vendor}`)]));
}

/** A whole catalog sent by an operator: every entry checked, duplicates refused, entries sorted. */
export function specFrom(spec: Spec, formats: Readonly<Record<string, Vendor>>): Spec {
  const seen = new Set<string>();
  const entries = spec.entries.map((entry, index) => {
    const key = `${entry.provider}/${entry.model}`;
    if (seen.has(key)) throw new InvalidInputError(`spec.entries[${index}]: provider "${entry.provider}" and model "${entry.model}" appear twice`);
    seen.add(key);
    const { provider, model, ...body } = entry;
    return entryFrom(provider, model, body, `spec.entries[${index}]`, formats);
  });
  return { entries: sortEntries(entries), tools: normalizeTools(spec.tools) };
}
