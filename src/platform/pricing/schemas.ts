import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MONEY_PATTERN } from '../money.js';

/* The pricing catalog (PLATFORM-API Part 3 §2, §4). All rates are money strings in USD. */

const Rate = (description: string) => Type.String({ pattern: MONEY_PATTERN, description });
const Optional = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Timestamp = Type.String({ format: 'date-time' });

const input = Rate('USD per million uncached input tokens');
const output = Rate('USD per million output tokens');
const cachedInput = Rate('USD per million input tokens read from the cache (absent: the input rate)');

export const PromptSizeTierSchema = Type.Object(
  {
    aboveTokens: Type.Integer({ minimum: 1, description: 'the tier applies when the prompt has more tokens than this' }),
    cachedInputUsdPerMillion: Optional(Rate("cached input in this tier (absent: the tier's input rate)")),
    inputUsdPerMillion: input,
    outputUsdPerMillion: output,
  },
  { additionalProperties: false },
);

export const VendorASchema = Type.Object(
  {
    cacheCreation1hInputUsdPerMillion: Optional(Rate('cache writes kept 1 hour (absent: the input rate)')),
    cacheCreation5mInputUsdPerMillion: Optional(Rate('cache writes kept 5 minutes (absent: the input rate)')),
    cachedInputUsdPerMillion: Optional(cachedInput),
    inputUsdPerMillion: input,
    outputUsdPerMillion: output,
  },
  { additionalProperties: false, description: 'rates of an Anthropic-format model' },
);

const tierList = Type.Array(PromptSizeTierSchema, { description: 'aboveTokens strictly increasing; the largest below the prompt size replaces input, output and cached input' });

export const VendorBSchema = Type.Object(
  {
    audioInputUsdPerMillion: Optional(Rate('audio input (absent: the input rate)')),
    audioOutputUsdPerMillion: Optional(Rate('audio output (absent: the output rate)')),
    cachedInputUsdPerMillion: Optional(cachedInput),
    inputUsdPerMillion: input,
    outputUsdPerMillion: output,
    promptSizeTiers: Optional(tierList),
    reasoningOutputUsdPerMillion: Optional(Rate('reasoning tokens (absent: the output rate)')),
  },
  { additionalProperties: false, description: 'rates of an OpenAI-format model' },
);

export const VendorCSchema = Type.Object(
  {
    audioInputUsdPerMillion: Optional(Rate('audio input (absent: the input rate)')),
    audioOutputUsdPerMillion: Optional(Rate('audio output (absent: the output rate)')),
    cachedAudioInputUsdPerMillion: Optional(Rate('cached audio input (absent: the audio input rate)')),
    cachedInputUsdPerMillion: Optional(cachedInput),
    inputUsdPerMillion: input,
    outputUsdPerMillion: output,
    promptSizeTiers: Optional(tierList),
    thoughtsOutputUsdPerMillion: Optional(Rate('thinking tokens (absent: the output rate)')),
  },
  { additionalProperties: false, description: 'rates of a Gemini-format model' },
);

export const VENDORS = ['vendor_a', 'vendor_b', 'vendor_c'] as const;
export type Vendor = (typeof VENDORS)[number];

/** The body of an entry write: exactly one rate block (checked by the service, naming the blocks sent). */
export const EntryBodySchema = Type.Object(
  { vendor_a: Optional(VendorASchema), vendor_b: Optional(VendorBSchema), vendor_c: Optional(VendorCSchema) },
  { additionalProperties: false, description: 'exactly one of vendor_a (Anthropic), vendor_b (OpenAI), vendor_c (Gemini)' },
);

const entryProperties = {
  model: Type.String({ minLength: 1 }),
  provider: Type.String({ minLength: 1 }),
  vendor_a: Optional(VendorASchema),
  vendor_b: Optional(VendorBSchema),
  vendor_c: Optional(VendorCSchema),
};
const entryDescription = 'one priced model: its provider and exactly one rate block';

export const EntrySchema = Type.Object(entryProperties, { $id: 'PricingEntry', additionalProperties: false, description: entryDescription });
/** The same entry inside a catalog (request bodies are validated without references). */
const CatalogEntrySchema = Type.Object(entryProperties, { additionalProperties: false, description: entryDescription });

export const ToolsSchema = Type.Object(
  {
    vendor_a: Optional(Type.Object({ webSearchUsdPerThousand: Optional(Rate('web search calls')) }, { additionalProperties: false })),
    vendor_b: Optional(
      Type.Object(
        { fileSearchUsdPerThousand: Optional(Rate('file search calls (never charged: no route reports them)')), webSearchUsdPerThousand: Optional(Rate('web search calls')) },
        { additionalProperties: false },
      ),
    ),
    vendor_c: Optional(Type.Object({ groundingSearchUsdPerThousand: Optional(Rate('grounding with search')) }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'tool call rates in USD per thousand calls; absent: free' },
);

export const SpecSchema = Type.Object(
  { entries: Type.Array(CatalogEntrySchema, { description: 'sorted by provider, then model' }), tools: ToolsSchema },
  { additionalProperties: false },
);

const ProviderAliases = Type.Record(Type.String(), Type.String(), { description: 'a model prefix → the provider it names (google → gemini)' });

export const CatalogSchema = Type.Object(
  { id: Type.String({ format: 'uuid', description: 'the version' }), effective_from: Timestamp, provider_aliases: ProviderAliases, spec: SpecSchema },
  { $id: 'PricingCatalog', additionalProperties: false },
);

export const CatalogBodySchema = Type.Object(
  {
    effective_from: Optional(Type.String({ description: 'RFC 3339; absent: now (operator-dated); future: staged' })),
    provider_aliases: ProviderAliases,
    spec: SpecSchema,
  },
  { additionalProperties: false },
);

export const VERSION_SOURCES = ['baseline', 'operator'] as const;
export const VERSION_STATES = ['staged', 'in_effect', 'superseded'] as const;
const Source = Type.Union(VERSION_SOURCES.map((source) => Type.Literal(source)));
const State = Type.Union(VERSION_STATES.map((state) => Type.Literal(state)));

export const VersionSummarySchema = Type.Object({ id: Type.String({ format: 'uuid' }), effective_from: Timestamp, source: Source, state: State }, { additionalProperties: false });
export const VersionListSchema = Type.Object({ versions: Type.Array(VersionSummarySchema, { description: 'newest first' }) });
export const VersionSchema = Type.Object(
  { id: Type.String({ format: 'uuid' }), effective_from: Timestamp, provider_aliases: ProviderAliases, spec: SpecSchema, source: Source, state: State },
  { $id: 'PricingVersion', additionalProperties: false },
);

export const EntryParamsSchema = Type.Object({ provider: Type.String({ minLength: 1 }), '*': Type.String() });
export const VersionParamsSchema = Type.Object({ effectiveFrom: Type.String() });

export type PromptSizeTier = Static<typeof PromptSizeTierSchema>;
export type VendorARates = Static<typeof VendorASchema>;
export type VendorBRates = Static<typeof VendorBSchema>;
export type VendorCRates = Static<typeof VendorCSchema>;
export type EntryBody = Static<typeof EntryBodySchema>;
export type Entry = Static<typeof EntrySchema>;
export type Tools = Static<typeof ToolsSchema>;
export type Spec = Static<typeof SpecSchema>;
export type Catalog = Static<typeof CatalogSchema>;
export type CatalogBody = Static<typeof CatalogBodySchema>;
export type VersionSource = (typeof VERSION_SOURCES)[number];
export type VersionState = (typeof VERSION_STATES)[number];
export type VersionSummary = Static<typeof VersionSummarySchema>;
export type Version = Static<typeof VersionSchema>;
