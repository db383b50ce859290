import { DomainError } from '../../core/errors.js';

/** One broken rule of a body field or query parameter, named by its Kubernetes field path. */
export interface Violation {
  field: string;
  message: string;
}

/** A 400 or 422 that names every field it is about (PLATFORM-API Part 5 §6). */
export class ViolationsError extends DomainError {
  constructor(
    status: 400 | 422,
    message: string,
    readonly violations: Violation[],
  ) {
    super(message, status);
  }
}

/** The `error` code of each status of AI gateway management. */
export const ERROR_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_found',
  409: 'already_exists',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'bad_request',
  422: 'invalid',
  428: 'precondition_required',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
};

export function errorCodeOf(status: number): string {
  return ERROR_CODES[status] ?? (status >= 500 ? 'internal' : 'bad_request');
}

/** A 400 about one query parameter or body field. */
export function badRequest(field: string, message: string): ViolationsError {
  return new ViolationsError(400, message, [{ field, message }]);
}
