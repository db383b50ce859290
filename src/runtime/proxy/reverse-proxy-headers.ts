import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Client headers that never go upstream: the client's Host and Origin describe the proxy, not
 * the upstream (and would trip DNS-rebinding checks); cookies and referers for localhost belong
 * to other local apps; the body is re-sent with its own length; compression is refused so
 * that answers can be rewritten.
 */
const NOT_FORWARDED = new Set(['host', 'origin', 'referer', 'cookie', 'content-length', 'accept-encoding', 'forwarded']);

/** Names listed in a Connection header are hop-by-hop for this one message. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set((value ?? '').split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
}

export function upstreamRequestHeaders(
  client: IncomingHttpHeaders,
  upstreamHost: string,
  targetHeaders: Readonly<Record<string, string>>,
  bodyLength: number | undefined,
): OutgoingHttpHeaders {
  const dropped = connectionTokens(client);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(client)) {
    if (value === undefined || HOP_BY_HOP.has(name) || NOT_FORWARDED.has(name) || dropped.has(name)) continue;
    if (name.startsWith('x-forwarded-')) continue;
    out[name] = value;
  }
  // Configured headers (static or from secrets) win over what the client sent.
  for (const [name, value] of Object.entries(targetHeaders)) out[name.toLowerCase()] = value;
  out.host = upstreamHost;
  out['accept-encoding'] = 'identity';
  if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
  return out;
}

/** The upstream's response headers minus hop-by-hop ones and, when the body changes, its length. */
export function clientResponseHeaders(upstream: IncomingHttpHeaders, bodyRewritten: boolean): OutgoingHttpHeaders {
  const dropped = connectionTokens(upstream);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name)) continue;
    if (bodyRewritten && name === 'content-length') continue;
    out[name] = value;
  }
  return out;
}
