import { randomUUID } from 'node:crypto';

/** Ids come from an injected source so that tests can predict them. */
export interface Ids {
  uuid(): string;
}

export const randomIds: Ids = { uuid: () => randomUUID() };
