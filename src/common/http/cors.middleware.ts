import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Response headers a browser client reads: request ids, rate limits, redirects and deprecations, downloads. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Location',
  'Idempotent-Replayed',
  'Deprecation',
  'Link',
  'Content-Disposition',
  'WWW-Authenticate',
];

export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Instance-Id',
  'X-Request-Id',
  // Sent by EventSource when it reconnects to the notification stream.
  'Last-Event-ID',
];

// Browsers cap the preflight cache anyway (Chromium at 2 hours); ten minutes keeps a config change prompt.
const PREFLIGHT_MAX_AGE_SECONDS = 600;

function isPreflight(req: Request): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

/**
 * CORS for the exact origins of CORS_ORIGINS, with credentials (the refresh
 * cookie). A request from any other origin gets no CORS header at all, so
 * the browser refuses it. Every preflight is answered here, before the rate
 * limiter and the legacy-path redirect (a browser cannot follow a redirected
 * preflight): 204 with the CORS headers for an allowed origin, a bare 204
 * otherwise.
 */
export function corsMiddleware(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  const handle =
    allowed.size > 0
      ? cors({
          origin: true,
          credentials: true,
          methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
          allowedHeaders: CORS_ALLOWED_HEADERS,
          exposedHeaders: CORS_EXPOSED_HEADERS,
          maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        })
      : null;
  return (req: Request, res: Response, next: NextFunction) => {
    if (handle) {
      // Caches must keep answers for different origins apart, allowed or not.
      res.vary('Origin');
      const origin = req.headers.origin;
      if (origin !== undefined && allowed.has(origin)) {
        handle(req, res, next);
        return;
      }
    }
    if (isPreflight(req)) {
      res.status(204).end();
      return;
    }
    next();
  };
}
