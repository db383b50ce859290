import type { FetchJson } from './fetcher.js';
import { BadGatewayError } from './errors.js';
import { text, type Json } from './server-json.js';
import { isJsonObject } from '../../core/json-object.js';

const PAGE_SIZE = 100;
/** A registry that keeps handing out cursors is broken, not large: stop well after any real catalog. */
const MAX_PAGES = 2000;

/**
 * Every page of one list endpoint, following `metadata.nextCursor`. `key` is the list's field
 * (`servers`, `skills`, `plugins`); optional endpoints answer undefined when the server lacks them.
 */
async function allPages(fetchJson: FetchJson, first: URL, key: string, allowPrivateIp: boolean, optional: boolean): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(first);
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    const body = await fetchJson(url.href, { allowPrivateIp, missingIsEmpty: optional });
    if (body === undefined) return [];
    const answer: Json = isJsonObject(body) ? body : {};
    const list: unknown = answer[key];
    if (!Array.isArray(list)) throw new BadGatewayError(`${url.host} did not answer ${url.pathname} with a {${key}: [...]} list`);
    items.push(...(list as unknown[]));
    const metadata = isJsonObject(answer.metadata) ? answer.metadata : {};
    cursor = text(metadata.nextCursor) || text(metadata.next_cursor) || undefined;
    if (cursor === undefined) return items;
    if (seen.has(cursor)) throw new BadGatewayError(`${url.host} returned the cursor "${cursor}" twice`);
    seen.add(cursor);
  }
  throw new BadGatewayError(`${first.host} kept paginating past ${String(MAX_PAGES)} pages`);
}

/**
 * Reads a registry API (anything speaking the MCP Registry `/v0.1/servers`) into one catalog
 * document `{servers, skills, plugins}`: latest versions only, where the server understands
 * `version=latest` (parsing picks isLatest anyway). Skills and plugins come from this project's
 * extension endpoints and are empty on a registry without them.
 */
export async function fetchApiCatalog(fetchJson: FetchJson, apiUrl: string, allowPrivateIp: boolean): Promise<Json> {
  const base = apiUrl.replace(/\/+$/, '');
  const list = (path: string, latest: boolean) => {
    const url = new URL(`${base}/v0.1/${path}`);
    url.searchParams.set('limit', String(PAGE_SIZE));
    if (latest) url.searchParams.set('version', 'latest');
    return url;
  };
  const servers = await allPages(fetchJson, list('servers', true), 'servers', allowPrivateIp, false);
  const skills = await allPages(fetchJson, list('x/dev.toolyard/skills', false), 'skills', allowPrivateIp, true);
  const plugins = await allPages(fetchJson, list('x/dev.toolyard/plugins', false), 'plugins', allowPrivateIp, true);
  return { servers, skills, plugins };
}
