import { ErrorSchema } from '../../core/http/schemas.js';
import type { Page } from './paging.js';

/** The error answers every admin route documents. */
export const adminErrors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };

/** `metadata` of a list envelope: the count of this page and the cursor of the next one. */
export function metadataOf(page: Page<unknown>): { count: number; nextCursor?: string } {
  return { count: page.items.length, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}
