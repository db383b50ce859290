import { badRequest, ViolationsError } from './errors.js';
import { shapeViolations } from './validate.js';
import { isJsonObject } from '../../core/json-object.js';

/** A request body as the AI gateway scope receives it: unparsed, so roles are checked before it is read. */
export interface RawBody {
  contentType: string | undefined;
  text: string;
}

const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * The 400s of a body (PLATFORM-API Part 5 §2 and rule 12): a media type of `accepted`, a JSON object,
 * no unknown member at any depth, and the right apiVersion and kind.
 */
export function readPolicyBody(raw: RawBody | undefined, accepted: readonly string[]): Record<string, unknown> {
  const type = mediaType(raw?.contentType);
  if (!raw || raw.text.trim() === '') throw badRequest('body', 'the request needs a JSON object body');
  if (!accepted.includes(type)) throw badRequest('body', `the content type ${type === '' ? '(none)' : `"${type}"`} is not accepted here: send ${accepted.join(' or ')}`);
  let body: unknown;
  try {
    body = JSON.parse(raw.text);
  } catch {
    throw badRequest('body', 'the body is not valid JSON');
  }
  if (!isJsonObject(body)) throw badRequest('body', 'the body must be a JSON object');
  const violations = shapeViolations(body);
  if (violations.length > 0) throw new ViolationsError(400, violations.map((violation) => violation.message).join('; '), violations);
  return body;
}
