import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.js';

/** Where a list stopped, bound to its filters and valid until `expires` (ms since the epoch). */
export interface PagePosition {
  after: string;
  labelSelector: string;
  gatewayRef: string;
  expires: number;
}

/**
 * Opaque page tokens, HMAC-SHA256 protected with a key every replica shares, so a token from one replica
 * continues the list on another (PLATFORM-API Part 5 rule 10).
 */
export function createPageTokens(key: Buffer) {
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    encode(position: PagePosition): string {
      const payload = Buffer.from(JSON.stringify([position.after, position.labelSelector, position.gatewayRef, position.expires])).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    /** The position, or a 400 on `pageToken` for an altered, expired or differently filtered token. */
    decode(token: string, filters: { labelSelector: string; gatewayRef: string }, now: number): PagePosition {
      const [payload = '', mac = '', ...rest] = token.split('.');
      const given = Buffer.from(mac, 'base64url');
      const expected = sign(payload);
      if (rest.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) throw badRequest('pageToken', 'pageToken is not a token this list gave: start again without it');
      const [after, labelSelector, gatewayRef, expires] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string, string, number];
      if (expires <= now) throw badRequest('pageToken', 'pageToken has expired: start the list again without it');
      if (labelSelector !== filters.labelSelector || gatewayRef !== filters.gatewayRef) {
        throw badRequest('pageToken', 'pageToken belongs to a list with other labelSelector or gatewayRef filters: send the same filters, or start again without it');
      }
      return { after, labelSelector, gatewayRef, expires };
    },
  };
}

export type PageTokens = ReturnType<typeof createPageTokens>;
