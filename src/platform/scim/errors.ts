import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors.js';
import { describeValidation } from '../../core/http/validation.js';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** The scimType values of RFC 7644 §3.12 this service answers with. */
export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers';

/** An error with the RFC 7644 §3.12 body: status, scimType where the RFC defines one, and a detail for a person. */
export class ScimError extends DomainError {
  constructor(
    status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
    headers: Record<string, string> = {},
  ) {
    super(detail, status, headers);
  }
}

export const scimErrorBody = (status: number, detail: string, scimType?: string) => ({
  schemas: [ERROR_SCHEMA],
  status: String(status),
  ...(scimType !== undefined && { scimType }),
  detail,
});

/** Every failure under /scim/v2 as an RFC 7644 error body; a 5xx carries no detail of the cause. */
export function sendScimError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  void reply.type(SCIM_CONTENT_TYPE);
  if (error instanceof ScimError) return reply.code(error.status).headers(error.headers).send(scimErrorBody(error.status, error.detail, error.scimType));
  if (error instanceof DomainError) {
    if (error.status >= 500) request.log.warn({ err: error }, 'SCIM request failed');
    const scimType = error.status === 409 ? 'uniqueness' : error.status === 400 ? 'invalidValue' : undefined;
    return reply.code(error.status).headers(error.headers).send(scimErrorBody(error.status, error.message, scimType));
  }
  if (error.validation) return reply.code(400).send(scimErrorBody(400, describeValidation(error), 'invalidSyntax'));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return reply.code(status).send(scimErrorBody(status, status === 400 ? 'the request body is not valid JSON' : error.message, status === 400 ? 'invalidSyntax' : undefined));
  request.log.error({ err: error, requestId: request.id }, 'unexpected SCIM error');
  return reply.code(500).send(scimErrorBody(500, 'internal server error'));
}
