import type { PlatformConfig } from '../config.js';
import type { ModelLimits } from '../pricing/baseline/convert.js';
import type { PricedModel } from '../pricing/catalog.js';
import { maxCost } from '../pricing/rates.js';
import type { Money } from '../money.js';
import type { WireFormat } from '../keys/gateway-auth.js';
import { isJsonObject } from '../../core/json-object.js';

/*
 * The reservation bound R of a request (PLATFORM-API Part 3 §1.2): the most its input, output and search
 * calls can cost. Requests are not rewritten; the bound only reads them.
 */

type Json = Record<string, unknown>;

/** A token costs at least one byte of text; this covers the tool prompts providers add. */
const PROVIDER_PROMPT_ALLOWANCE = 4096;
/** Anthropic's web search tool without `max_uses`. */
const DEFAULT_SEARCH_USES = 10;

export interface Bound {
  inBound: number;
  outBound: number;
  toolBound: number;
  maxCost: Money;
}

const positiveInteger = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);
const toolsOf = (body: Json): Json[] => (Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : []);

/** Whether any value of the body (depth first, without recursion) satisfies `test`. */
function anyNode(root: unknown, test: (node: Json) => boolean): boolean {
  const pending: unknown[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item);
    } else if (isJsonObject(value)) {
      if (test(value)) return true;
      for (const item of Object.values(value)) if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return false;
}

const HTTP_URL = /^https?:\/\//i;

/** Content the provider fetches or holds (its size is not the body's), or a search whose results become input. */
function referencesContent(format: WireFormat, body: Json): boolean {
  switch (format) {
    case 'openai':
      return (
        body.web_search_options !== undefined ||
        anyNode(body.messages, (node) => {
          const image = node.image_url;
          const url = isJsonObject(image) ? image.url : image;
          return (typeof url === 'string' && HTTP_URL.test(url)) || typeof node.file_id === 'string';
        })
      );
    case 'anthropic':
      return (
        toolsOf(body).some(isAnthropicSearch) ||
        anyNode(body.messages, (node) => isJsonObject(node.source) && (node.source.type === 'url' || node.source.type === 'file'))
      );
    case 'gemini':
      return body.cachedContent !== undefined || toolsOf(body).some(isGeminiSearch) || anyNode(body.contents, (node) => node.fileData !== undefined);
  }
}

const isAnthropicSearch = (tool: Json) => typeof tool.type === 'string' && tool.type.startsWith('web_search_');
const isGeminiSearch = (tool: Json) => tool.googleSearch !== undefined;

function outputTokens(format: WireFormat, body: Json, limits: ModelLimits): number {
  switch (format) {
    case 'openai': {
      const asked = positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens) ?? limits.maxOutputTokens;
      return asked * (positiveInteger(body.n) ?? 1);
    }
    case 'anthropic':
      return positiveInteger(body.max_tokens) ?? limits.maxOutputTokens;
    case 'gemini': {
      const config = isJsonObject(body.generationConfig) ? body.generationConfig : {};
      return (positiveInteger(config.maxOutputTokens) ?? limits.maxOutputTokens) * (positiveInteger(config.candidateCount) ?? 1);
    }
  }
}

function toolCalls(format: WireFormat, body: Json): number {
  switch (format) {
    case 'openai':
      return body.web_search_options === undefined ? 0 : 1;
    case 'anthropic':
      return toolsOf(body)
        .filter(isAnthropicSearch)
        .reduce((sum, tool) => sum + (positiveInteger(tool.max_uses) ?? DEFAULT_SEARCH_USES), 0);
    case 'gemini':
      return toolsOf(body).some(isGeminiSearch) ? 1 : 0;
  }
}

/** A model's context limits: `llmGateway.modelLimits["<provider>/<model>"]`, else the price table's, else the defaults. */
export function modelLimitsOf(config: Pick<PlatformConfig['llmGateway'], 'modelLimits' | 'defaultModelLimits'>, model: PricedModel): ModelLimits {
  return config.modelLimits[`${model.provider}/${model.model}`] ?? model.limits ?? config.defaultModelLimits;
}

/** R for `body` (as sent on a route of `format`, `bodyBytes` long) to `model` with context `limits`. */
export function reservationBound(format: WireFormat, body: Json, bodyBytes: number, model: PricedModel, limits: ModelLimits): Bound {
  const inBound = referencesContent(format, body) ? limits.maxInputTokens : Math.min(limits.maxInputTokens, bodyBytes + PROVIDER_PROMPT_ALLOWANCE);
  const outBound = outputTokens(format, body, limits);
  const toolBound = toolCalls(format, body);
  return { inBound, outBound, toolBound, maxCost: maxCost(model.block, inBound, outBound, toolBound) };
}
