import type { NextFunction, Request, Response } from 'express';
import { SCIM_CONTENT_TYPE } from './scim-resources';
import { SCIM_ERROR_SCHEMA } from './scim.errors';

const SCIM_PATH = /^\/api\/v1\.0\/scim\//;

/**
 * A body the JSON parser refuses on a SCIM route is answered as a SCIM error
 * (400 invalidSyntax, 413), since identity providers do not read problem
 * details. It runs before routing, so the SCIM exception filter never sees it.
 */
export function scimBodyErrorMiddleware(
  error: unknown,
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (!SCIM_PATH.test(req.originalUrl)) {
    next(error);
    return;
  }
  const status = (error as { status?: number }).status ?? 400;
  const body =
    status === 413
      ? { schemas: [SCIM_ERROR_SCHEMA], status: '413', detail: 'The request body is too large.' }
      : {
          schemas: [SCIM_ERROR_SCHEMA],
          status: '400',
          scimType: 'invalidSyntax',
          detail: 'The request body is not valid JSON.',
        };
  res
    .status(status === 413 ? 413 : 400)
    .type(SCIM_CONTENT_TYPE)
    .send(JSON.stringify(body));
}
