/**
 * Domain errors, named by meaning. Services throw them; one HTTP error handler maps them to a status
 * and the `{error}` body, so no route or service decides on status codes by itself.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** Response headers the answer carries (the current ETag of a 412, Retry-After of a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends DomainError {
  constructor(message: string) {
    super(message, 400);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'authentication required') {
    super(message, 401);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(message, 403);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super(message, 404);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super(message, 409);
  }
}

export class PreconditionFailedError extends DomainError {
  /** `current.etag`: the resource's current ETag, sent back so the client can retry without another read. */
  constructor(message: string, current: { etag?: string } = {}) {
    super(message, 412, current.etag === undefined ? {} : { etag: current.etag });
  }
}

export class PreconditionRequiredError extends DomainError {
  constructor(message: string) {
    super(message, 428);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super(message, 413);
  }
}

/** Well-formed input the rules refuse as a whole (a policy that does not validate, an unknown reference). */
export class UnprocessableError extends DomainError {
  constructor(message: string) {
    super(message, 422);
  }
}

/** An upstream asked us to slow down; its `Retry-After` is passed on so the caller knows when to come back. */
export class RateLimitedError extends DomainError {
  constructor(message: string, retryAfter?: string) {
    super(message, 429, retryAfter === undefined ? {} : { 'retry-after': retryAfter });
  }
}

export class UnavailableError extends DomainError {
  constructor(message: string) {
    super(message, 503);
  }
}

/** The service cannot do this for this caller at all (not a defect of the request, nor a passing failure). */
export class NotImplementedError extends DomainError {
  constructor(message: string) {
    super(message, 501);
  }
}

/** An upstream the request needed failed; the message names it. */
export class BadGatewayError extends DomainError {
  constructor(message: string) {
    super(message, 502);
  }
}
