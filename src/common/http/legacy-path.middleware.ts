import type { NextFunction, Request, Response } from 'express';
import { problemOf, sendProblem } from '../errors/problem-details.filter';

export const API_PREFIX = 'api/v1.0';

/**
 * First path segments of the API. A request to one of them without the
 * version prefix is a legacy call: it gets a permanent redirect that keeps
 * the method, body and query string. The route-policy test checks that every
 * registered route's root is listed here.
 */
export const API_ROOTS = new Set([
  'admin',
  'ai',
  'ai-feedback',
  'ai-logs',
  'alerts',
  'api-keys',
  'auth',
  'catalog',
  'connectors',
  'health',
  'integrations',
  'issues',
  'metrics',
  'notifications',
  'openlineage',
  'preferences',
  'query',
  'quality',
  'rate-limit',
  'scim',
  'search',
  'spaces',
  'sso',
  'users',
]);

/**
 * Everything the API serves is under the prefix. A known root without it is
 * a legacy call and is redirected; any other path is a 404 problem (Nest's
 * own not-found handler only covers the prefix).
 */
export function legacyPathMiddleware(req: Request, res: Response, next: NextFunction): void {
  const url = req.originalUrl;
  if (url.startsWith(`/${API_PREFIX}/`) || url === `/${API_PREFIX}` || url.startsWith(`/${API_PREFIX}?`)) {
    next();
    return;
  }
  const root = url.split(/[/?#]/, 2)[1] ?? '';
  if (API_ROOTS.has(root)) {
    res.setHeader('Deprecation', 'true');
    res.setHeader('Link', `</${API_PREFIX}${url}>; rel="successor-version"`);
    res.redirect(308, `/${API_PREFIX}${url}`);
    return;
  }
  sendProblem(
    res,
    problemOf(
      404,
      `Nothing is served at ${url.split('?')[0]}: the API lives under /${API_PREFIX}.`,
      url.split('?')[0],
    ),
  );
}
