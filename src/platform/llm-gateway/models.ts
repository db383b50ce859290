import type { PricingCatalog } from '../pricing/catalog.js';
import type { Upstreams } from './upstream.js';

/** `GET /llm/v1/models` (PLATFORM-API Part 3 §1): priced models served on chat completions. */
export interface ListedModels {
  list(): { object: 'list'; data: { id: string; object: 'model'; created: number; owned_by: string }[] };
}

export function createListedModels(options: { catalog: PricingCatalog; upstreams: Upstreams }): ListedModels {
  return {
    list() {
      const version = options.catalog.inEffect();
      if (!version) return { object: 'list', data: [] };
      const created = Math.floor(version.row.effective_from.getTime() / 1000);
      const seen = new Set<string>();
      const data = version.row.spec.entries
        .filter((entry) => options.upstreams.get(entry.provider)?.serves('openai') === true)
        .sort((left, right) => (left.model === right.model ? (left.provider < right.provider ? -1 : 1) : left.model < right.model ? -1 : 1))
        // a name two providers price is served by the one model resolution picks: listed once
        .filter((entry) => !seen.has(entry.model) && seen.add(entry.model))
        .map((entry) => ({ id: entry.model, object: 'model' as const, created, owned_by: entry.provider }));
      return { object: 'list', data };
    },
  };
}
