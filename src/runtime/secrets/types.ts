import type { Capabilities, ProviderType } from './schemas.js';


export const PROVIDER_CAPABILITIES: Readonly<Record<ProviderType, Readonly<Capabilities>>> = {
  encrypted: { read: true, write: true, list: true, delete: true },
  environment: { read: true, write: false, list: false, delete: false },
  '1password': { read: true, write: false, list: true, delete: false },
};

/**
 * One place secrets live. Values pass through `get` and `set` only; `list` gives keys, never values.
 * `set` checks existence inside the provider so that the check and the write happen under one lock.
 */
export interface SecretsProvider {
  readonly type: ProviderType;
  readonly capabilities: Readonly<Capabilities>;
  get: (key: string) => Promise<string | undefined>;
  /** `new`: the key must not exist (409); `existing`: it must (404). */
  set: (key: string, value: string, expect: 'new' | 'existing') => Promise<void>;
  /** Removes the key; 404 when it does not exist. */
  delete: (key: string) => Promise<void>;
  list: () => Promise<string[]>;
}
