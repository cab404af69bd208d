import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { sendScimError } from './scim-exception.filter';

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
  sendScimError(res, error, req, logger);
}
