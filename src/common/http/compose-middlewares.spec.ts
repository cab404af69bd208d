import type { NextFunction, Request, Response } from 'express';
import { composeMiddlewares, type Middleware } from './compose-middlewares';

const req = {} as Request;
const res = {} as Response;

function run(middlewares: Middleware[]): Promise<{ trail: string[]; passed: unknown }> {
  return new Promise((resolve) => {
    const trail: string[] = [];
    (req as unknown as { trail: string[] }).trail = trail;
    composeMiddlewares(middlewares)(req, res, ((error?: unknown) =>
      resolve({ trail, passed: error })) as NextFunction);
  });
}

const step =
  (name: string, outcome?: () => unknown) =>
  (r: Request, _res: Response, next: NextFunction): void => {
    (r as unknown as { trail: string[] }).trail.push(name);
    const error = outcome?.();
    next(error);
  };

describe('composeMiddlewares', () => {
  beforeEach(() => {
    (req as unknown as { trail: string[] }).trail = [];
  });

  it('runs the middlewares in order, then hands on to what follows', async () => {
    expect(await run([step('a'), step('b'), step('c')])).toEqual({
      trail: ['a', 'b', 'c'],
      passed: undefined,
    });
  });

  it('goes on when a middleware calls next later (a body parser reading the stream)', async () => {
    const later = (r: Request, _res: Response, next: NextFunction) => {
      (r as unknown as { trail: string[] }).trail.push('later');
      setImmediate(() => next());
    };
    expect(await run([step('a'), later, step('b')])).toEqual({
      trail: ['a', 'later', 'b'],
      passed: undefined,
    });
  });

  it('skips error middlewares without an error, and ordinary ones with an error', async () => {
    const failure = new Error('bad body');
    const handled: unknown[] = [];
    const onError = (error: unknown, _r: Request, _res: Response, next: NextFunction) => {
      handled.push(error);
      next(error);
    };
    expect(await run([step('a'), onError, step('b', () => failure), step('skipped'), onError])).toEqual({
      trail: ['a', 'b'],
      passed: failure,
    });
    expect(handled).toEqual([failure]);
  });

  it('lets an error middleware recover, and turns a synchronous throw into next(error)', async () => {
    const failure = new Error('thrown');
    const thrower = () => {
      throw failure;
    };
    const recover = (_error: unknown, _r: Request, _res: Response, next: NextFunction) => next();
    expect(await run([thrower, step('skipped'), recover, step('after')])).toEqual({
      trail: ['after'],
      passed: undefined,
    });
    expect(await run([thrower, step('skipped')])).toEqual({ trail: [], passed: failure });
  });

  it('does not run what follows when a middleware answers', async () => {
    const answered = composeMiddlewares([step('a'), (): void => undefined, step('b')]);
    const next = jest.fn();
    answered(req, res, next);
    expect((req as unknown as { trail: string[] }).trail).toEqual(['a']);
    expect(next).not.toHaveBeenCalled();
  });
});
