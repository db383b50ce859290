import { packageRecord, RecordError, serverRecord, type IngestRecord } from './records.js';
import { isJsonObject } from '../../../core/json-object.js';

/** The document as a whole is not a catalog: the sync fails and the served content stays. */
export class CatalogFormatError extends Error {}

export interface ParsedCatalog {
  records: IngestRecord[];
  /** Records that were skipped, with the reason (the first few are reported in the sync message). */
  skipped: string[];
}

/**
 * Reads the catalog formats a source may deliver:
 * - the upstream registry document `{version, meta, data: {servers, skills?, plugins?}}`;
 * - MCP Registry API records `[{server, _meta}]` or `{servers: [{server, _meta}]}`;
 * - a plain list of server.json objects (the official registry's seed file).
 */
export function parseCatalogDocument(document: unknown): ParsedCatalog {
  const parsed: ParsedCatalog = { records: [], skipped: [] };
  if (Array.isArray(document)) {
    addServers(parsed, document, 'servers');
    return parsed;
  }
  if (!isJsonObject(document)) throw new CatalogFormatError('a catalog must be a JSON object or array');
  if (isJsonObject(document.data)) {
    const { servers, skills, plugins } = document.data;
    for (const [key, value] of Object.entries({ servers, skills, plugins })) {
      if (value !== undefined && !Array.isArray(value)) throw new CatalogFormatError(`data.${key} must be an array`);
    }
    addServers(parsed, (servers as unknown[] | undefined) ?? [], 'data.servers');
    addPackages(parsed, 'skill', (skills as unknown[] | undefined) ?? [], 'data.skills');
    addPackages(parsed, 'plugin', (plugins as unknown[] | undefined) ?? [], 'data.plugins');
    return parsed;
  }
  if (Array.isArray(document.servers)) {
    addServers(parsed, document.servers, 'servers');
    return parsed;
  }
  throw new CatalogFormatError('not a catalog: expected {data: {servers: [...]}}, {servers: [...]} or an array of server records');
}

export function addServers(parsed: ParsedCatalog, items: unknown[], where: string): void {
  items.forEach((item, index) => {
    // server.json has no `server` field: an item with one is an API record, even when its server is broken
    const input = isJsonObject(item) && 'server' in item ? { server: item.server, meta: item._meta } : { server: item };
    collect(parsed, `${where}[${index}]`, () => serverRecord(input, false));
  });
}

function addPackages(parsed: ParsedCatalog, type: 'skill' | 'plugin', items: unknown[], where: string): void {
  items.forEach((item, index) => collect(parsed, `${where}[${index}]`, () => packageRecord(type, item, false)));
}

function collect(parsed: ParsedCatalog, where: string, read: () => IngestRecord): void {
  try {
    parsed.records.push(read());
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    parsed.skipped.push(`${where}.${error.message}`);
  }
}
