import type { RegistryEntryRow, RegistryRow } from './store.js';

export function presentRegistry(row: RegistryRow) {
  return {
    name: row.name,
    sources: row.sources,
    claims: row.claims,
    creationType: row.creation_type,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type RegistryResource = ReturnType<typeof presentRegistry>;

export function presentRegistryEntry(row: RegistryEntryRow) {
  return {
    entryType: row.entry_type,
    name: row.name,
    version: row.version,
    title: row.title,
    description: row.description,
    sourceName: row.source_name,
    position: row.position,
    // for authorization only: the response schema leaves it out
    claims: row.claims,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type RegistryEntryResource = ReturnType<typeof presentRegistryEntry>;
