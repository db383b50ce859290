import { DomainError, ForbiddenError } from '../../core/errors.js';

/**
 * The store exists but the configured password does not open it. Never answered with an empty
 * store: that would let a write replace every secret the user has.
 */
export class SecretsLockedError extends ForbiddenError {
  constructor(detail = 'wrong password, or the file was changed outside Toolyard') {
    super(`the secrets store cannot be decrypted with the configured password (${detail})`);
  }
}

/** The store file is not one Toolyard can read at all (truncated, edited, another format). */
export class SecretsDamagedError extends ForbiddenError {
  constructor(reason: string) {
    super(`the secrets store file is damaged and cannot be read: ${reason}`);
  }
}

/** The configured provider cannot do this (a write on a read-only provider). */
export class SecretsOperationNotSupportedError extends DomainError {
  constructor(message: string) {
    super(message, 405);
  }
}
