import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/** An Express middleware or error middleware (four parameters), as `app.use` takes them. */
export type Middleware = RequestHandler | ErrorRequestHandler;

const isErrorHandler = (middleware: Middleware): middleware is ErrorRequestHandler => middleware.length === 4;

/**
 * One Express middleware running `middlewares` in order, with Express's
 * rules: `next()` goes on to the next ordinary middleware, `next(error)` (or
 * a synchronous throw) to the next error middleware, and past the last one
 * to what follows in the application. Mounted as one layer instead of one
 * each: Express's router pays a path match and a few closures per layer on
 * every request.
 */
export function composeMiddlewares(middlewares: readonly Middleware[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      while (index < middlewares.length) {
        const middleware = middlewares[index++];
        if (error === undefined || error === null) {
          if (isErrorHandler(middleware)) continue;
          try {
            (middleware as RequestHandler)(req, res, next);
          } catch (thrown) {
            next(thrown);
          }
          return;
        }
        if (!isErrorHandler(middleware)) continue;
        try {
          middleware(error, req, res, next);
        } catch (thrown) {
          next(thrown);
        }
        return;
      }
      done(error);
    };
    next();
  };
}
