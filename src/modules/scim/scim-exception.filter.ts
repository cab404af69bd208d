import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../../common/errors/domain-error';
import { mapPostgresError } from '../../common/errors/postgres-error.mapper';
import { SCIM_CONTENT_TYPE } from './scim-resources';
import { SCIM_ERROR_SCHEMA, ScimError } from './scim.errors';

interface ScimErrorBody {
  schemas: string[];
  status: string;
  scimType?: string;
  detail: string;
}

/** Domain conflicts that are SCIM uniqueness violations. */
const UNIQUENESS_CODES = new Set(['email_taken', 'duplicate']);

/**
 * On SCIM routes every error is a SCIM error body (RFC 7644 §3.12), not a
 * problem-details document: identity providers parse `status`, `scimType`
 * and `detail`.
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Scim');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    sendScimError(response, exception, request, this.logger);
  }
}

/** Answers anything thrown or passed on while serving a SCIM route as a SCIM error. */
export function sendScimError(
  response: Response,
  exception: unknown,
  request: Request,
  logger: Logger,
): void {
  const { status, body, headers } = scimErrorOf(exception, request, logger);
  response.set(headers).status(status).type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

function scimErrorOf(
  exception: unknown,
  request: Request,
  logger: Logger,
): { status: number; body: ScimErrorBody; headers: Record<string, string> } {
  const body = (status: number, detail: string, scimType?: string): ScimErrorBody => ({
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  });
  if (exception instanceof ScimError) {
    return {
      status: exception.status,
      body: body(exception.status, exception.detail, exception.scimType),
      headers: exception.headers,
    };
  }
  const domain = exception instanceof DomainError ? exception : mapPostgresError(exception);
  if (domain) {
    const code = String(domain.extensions.code ?? '');
    let scimType: string | undefined;
    if (domain.status === 409 && UNIQUENESS_CODES.has(code)) scimType = 'uniqueness';
    // A DTO-level failure is a bad value in SCIM terms.
    const status = domain.status === 422 ? 400 : domain.status;
    if (domain.status === 422) scimType = 'invalidValue';
    return { status, body: body(status, domain.detail, scimType), headers: domain.headers };
  }
  // body-parser's own errors (before routing) carry `type` ("entity.parse.failed", "entity.too.large", …).
  const parserError = typeof (exception as { type?: unknown } | null)?.type === 'string';
  if (exception instanceof HttpException || parserError) {
    const status =
      exception instanceof HttpException
        ? exception.getStatus()
        : (exception as { status?: number }).status === 413
          ? 413
          : 400;
    // Unparseable JSON from body-parser.
    const scimType = status === 400 ? 'invalidSyntax' : undefined;
    const detail =
      status === 400
        ? 'The request body is not valid JSON.'
        : status === 404
          ? 'No SCIM resource at this path.'
          : status === 413
            ? 'The request body is too large.'
            : (exception as Error).message;
    return { status, body: body(status, detail, scimType), headers: {} };
  }
  logger.error(
    `Unhandled error on ${request.method} ${request.originalUrl} [request ${request.id ?? '-'}]`,
    exception instanceof Error ? exception.stack : String(exception),
  );
  return { status: 500, body: body(500, 'An unexpected error occurred.'), headers: {} };
}
