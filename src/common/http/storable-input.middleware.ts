import type { NextFunction, Request, Response } from 'express';
import { BadRequest, DomainError, ValidationFailed } from '../errors/domain-error';
import { isStorableText, unstorableFields } from './storable-text';

/**
 * Text PostgreSQL cannot store (U+0000, unpaired UTF-16 surrogates) is
 * refused here, once for every route, before any handler or query sees it.
 * Other control characters are storable and left to each field's own rule
 * (slugs, emails and UUIDs refuse them; free text keeps tabs and newlines).
 *
 * This one runs first, on the request target: a path that is not valid
 * percent-encoding is malformed (400); a path segment with such a character
 * names nothing that can exist (404); a query parameter with one is invalid
 * input (422 naming the parameter).
 */
export function storableRequestTargetMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const url = req.originalUrl;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  // The HTTP parser refuses raw control bytes in the request line, and bytes
  // that are not UTF-8 never decode to a surrogate: such text can only come
  // percent-encoded, so the common request without '%' costs one scan.
  if (path.includes('%')) {
    const refusal = pathRefusal(path);
    if (refusal) {
      next(refusal);
      return;
    }
  }
  if (queryStart !== -1 && url.includes('%00', queryStart)) {
    const errors = unstorableFields(req.query, 'query');
    if (errors.length) {
      next(new ValidationFailed(errors));
      return;
    }
  }
  next();
}

function pathRefusal(path: string): DomainError | undefined {
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return new BadRequest('The request path is not valid percent-encoded UTF-8.', 'malformed_path');
    }
    if (!isStorableText(decoded)) {
      return new DomainError(
        404,
        'not-found',
        'Not Found',
        'Nothing is named with a NUL character or an unpaired UTF-16 surrogate: no resource has this path.',
        { code: 'not_found' },
      );
    }
  }
  return undefined;
}

/** The same refusal for a parsed JSON or urlencoded body, at any depth (422 naming the fields). */
export function storableBodyMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const errors = unstorableFields(req.body, 'body');
  next(errors.length ? new ValidationFailed(errors) : undefined);
}
