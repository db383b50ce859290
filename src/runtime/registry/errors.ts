import { DomainError } from '../../core/errors.js';

/** The catalog's server answered, but not with a catalog (an error status, HTML, a JSON of another shape). */
export class BadGatewayError extends DomainError {
  constructor(message: string) {
    super(message, 502);
  }
}

/** The catalog's server could not be reached in time: DNS failure, refused connection, or no answer. */
export class GatewayTimeoutError extends DomainError {
  constructor(message: string) {
    super(message, 504);
  }
}
