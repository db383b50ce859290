import { UnavailableError } from '../../core/errors.js';
import { SecretsOperationNotSupportedError } from './errors.js';
import type { ProcessRunner } from './process.js';
import { PROVIDER_CAPABILITIES, type SecretsProvider } from './types.js';

export const ONE_PASSWORD_TOKEN = 'OP_SERVICE_ACCOUNT_TOKEN';

export interface OnePasswordOptions {
  /** The `op` executable. */
  op: string;
  /** Passed to `op` as is: it authenticates with OP_SERVICE_ACCOUNT_TOKEN from here. */
  env: Readonly<Record<string, string | undefined>>;
  run: ProcessRunner;
}

// what `op read` says when the reference names nothing, as opposed to failing to ask
const NOT_FOUND = /isn't an item|isn't a vault|isn't a field|could not find|not found|no item/i;

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

function failed(what: string, stderr: string): UnavailableError {
  const line = firstLine(stderr);
  return new UnavailableError(`1Password CLI could not ${what}${line === '' ? '' : `: ${line}`}`);
}

function itemReference(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { title, vault } = item as { title?: unknown; vault?: { name?: unknown } };
  if (typeof title !== 'string' || typeof vault?.name !== 'string') return undefined;
  return `op://${vault.name}/${title}`;
}

/**
 * 1Password through its CLI with a service account: read-only. Keys are secret references
 * (`op://vault/item/field`); the listing names items (`op://vault/item`), since listing fields would
 * mean fetching every value.
 */
export function createOnePasswordProvider(options: OnePasswordOptions): SecretsProvider {
  const { op, env, run } = options;
  const readOnly = (operation: string): Promise<never> => Promise.reject(new SecretsOperationNotSupportedError(`the 1password secrets provider is read-only: it cannot ${operation}`));
  return {
    type: '1password',
    capabilities: PROVIDER_CAPABILITIES['1password'],
    get: async (key) => {
      if (!key.startsWith('op://')) return undefined;
      const result = await run(op, ['read', '--no-newline', key], { env });
      if (result.code === 0) return result.stdout;
      if (NOT_FOUND.test(result.stderr)) return undefined;
      throw failed(`read ${key}`, result.stderr);
    },
    list: async () => {
      const result = await run(op, ['item', 'list', '--format', 'json'], { env });
      if (result.code !== 0) throw failed('list items', result.stderr);
      let items: unknown;
      try {
        items = JSON.parse(result.stdout);
      } catch {
        throw failed('list items', 'its output is not JSON');
      }
      if (!Array.isArray(items)) throw failed('list items', 'its output is not a list');
      return items.map(itemReference).filter((reference): reference is string => reference !== undefined).sort();
    },
    set: () => readOnly('write secrets'),
    delete: () => readOnly('delete secrets'),
  };
}
