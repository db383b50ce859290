import type { PricingCatalog } from '../pricing/catalog.js';
import type { Upstreams } from './upstream.js';

/** `GET /llm/v1/models` (PLATFORM-API Part 3 §1): priced models served on chat completions, none when no AI policy allows the caller any. */
export interface ListedModels {
  list(caller: { allowed: boolean }): { object: 'list'; data: { id: string; object: 'model'; created: number; owned_by: string }[] };
}

export function createListedModels(options: { catalog: PricingCatalog; upstreams: Upstreams }): ListedModels {
  const { catalog, upstreams } = options;
  return {
    list(caller) {
      const version = catalog.inEffect();
      if (!version || !caller.allowed) return { object: 'list', data: [] };
      const created = Math.floor(version.row.effective_from.getTime() / 1000);
      const names = [...new Set(version.row.spec.entries.map((entry) => entry.model))].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
      const data = names.flatMap((name) => {
        // a name several providers price is the one model resolution picks on chat completions
        const priced = catalog.resolve(name, upstreams.preferredFor('openai'));
        if (!priced || upstreams.get(priced.provider)?.serves('openai') !== true) return [];
        return [{ id: name, object: 'model' as const, created, owned_by: priced.provider }];
      });
      return { object: 'list', data };
    },
  };
}
