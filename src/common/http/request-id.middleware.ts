import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a well-formed `X-Request-Id` or makes one, and echoes it on every response. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-request-id');
  req.id = given && ACCEPTABLE_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
}
