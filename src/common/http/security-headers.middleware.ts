import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';
import { API_PREFIX } from './legacy-path.middleware';

const DOCS_PATH = `/${API_PREFIX}/docs`;

const COMMON: HelmetOptions = {
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // Sent only over HTTPS, below: over plain HTTP the header is meaningless and would mislead.
  strictTransportSecurity: false,
  // A browser app on a sibling host (app.example.com and api.example.com) may embed attachments.
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/** JSON and problem responses load nothing and may not be framed. */
const API_CSP = { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } };

/**
 * Swagger UI 5 as served here: its bundle, preset and init script from this
 * origin, the page's inline <style> blocks and style attributes, SVG icons
 * as data: URLs, and fetch() to this origin for the document and "Try it out".
 */
const DOCS_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
};

const ONE_YEAR_SECONDS = 31_536_000;

/**
 * Helmet's headers on every response, problems and redirects included:
 * nosniff, frame denial (X-Frame-Options and CSP frame-ancestors),
 * no referrer, a strict CSP (a looser one for the docs page), and HSTS when
 * the request came over HTTPS (seen through a trusted proxy too). Routes that
 * set their own CSP afterwards (attachment downloads) keep theirs.
 */
export function securityHeadersMiddleware(): RequestHandler {
  const api = helmet({ ...COMMON, contentSecurityPolicy: API_CSP });
  const docs = helmet({ ...COMMON, contentSecurityPolicy: DOCS_CSP });
  const hsts = helmet.strictTransportSecurity({ maxAge: ONE_YEAR_SECONDS, includeSubDomains: true });
  return (req: Request, res: Response, next: NextFunction) => {
    const headers = req.path === DOCS_PATH || req.path.startsWith(`${DOCS_PATH}/`) ? docs : api;
    headers(req, res, (error?: unknown) => {
      if (error !== undefined || !req.secure) {
        next(error);
        return;
      }
      hsts(req, res, next);
    });
  };
}
