import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { scimErrorOf } from './scim-exception.filter';
import { SCIM_CONTENT_TYPE } from './scim-resources';
import { SCIM_ERROR_SCHEMA } from './scim.errors';

const SCIM_PATH = /^\/api\/v1\.0\/scim\//;
const logger = new Logger('Scim');

/**
 * An error raised before routing on a SCIM route (a body the JSON parser
 * refuses, text PostgreSQL cannot store in the path, query or body) is
 * answered as a SCIM error, since identity providers do not read problem
 * details; the SCIM exception filter only sees errors of the SCIM handlers.
 */
export function scimPreRoutingErrorMiddleware(
  error: unknown,
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (!SCIM_PATH.test(req.originalUrl)) {
    next(error);
    return;
  }
  // body-parser's errors carry `type` ("entity.parse.failed", "entity.too.large", …).
  const parserError = typeof (error as { type?: unknown }).type === 'string';
  if (parserError) {
    const tooLarge = (error as { status?: number }).status === 413;
    const body = tooLarge
      ? { schemas: [SCIM_ERROR_SCHEMA], status: '413', detail: 'The request body is too large.' }
      : {
          schemas: [SCIM_ERROR_SCHEMA],
          status: '400',
          scimType: 'invalidSyntax',
          detail: 'The request body is not valid JSON.',
        };
    res
      .status(tooLarge ? 413 : 400)
      .type(SCIM_CONTENT_TYPE)
      .send(JSON.stringify(body));
    return;
  }
  const { status, body, headers } = scimErrorOf(error, req, logger);
  res.set(headers).status(status).type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}
