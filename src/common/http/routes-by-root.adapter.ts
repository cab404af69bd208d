import { ExpressAdapter } from '@nestjs/platform-express';
import { Router, type Application, type NextFunction, type Request, type Response } from 'express';
import { API_PREFIX } from './legacy-path.middleware';

const PREFIX = `/${API_PREFIX}/`;

type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options' | 'all';
/** OPTIONS routes, and those of every method, stay in Express's own list: OPTIONS requests skip the roots' routers. */
const ROOT_ROUTED = new Set<RouteMethod>(['get', 'post', 'put', 'patch', 'delete', 'head']);

/** The lowercase first segment after the API prefix (`auth` in `/api/v1.0/auth/me`), or null. */
export function apiRootOf(path: string): string | null {
  if (path.length <= PREFIX.length || path.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return null;
  const end = path.indexOf('/', PREFIX.length);
  return path.slice(PREFIX.length, end === -1 ? undefined : end).toLowerCase();
}

/**
 * Nest's Express adapter with the routes kept in one Express router per API
 * root (`/api/v1.0/<root>/...`) instead of in one list. Express tries a
 * request against its routes in turn, a regular expression each: with about
 * 300 routes, every request paid for all those registered before its own.
 * One dispatch layer, where the first of these routes would have been, hands
 * a request to its root's router, so it is matched against that root's
 * routes only. Routes keep their full paths (`req.route.path`, the metrics
 * label, is unchanged) and their order within a root; routes of different
 * static roots never match the same path, so the order across roots was
 * never observable. Like Express's own matching the root is case-insensitive.
 * A path that is not a string under the prefix, whose root is a parameter or
 * a pattern, or an OPTIONS or every-method route stays in Express's own list.
 */
export class RoutesByRootAdapter extends ExpressAdapter {
  private readonly routers = new Map<string, Router>();

  override get(...args: unknown[]) {
    return this.route('get', args);
  }
  override post(...args: unknown[]) {
    return this.route('post', args);
  }
  override put(...args: unknown[]) {
    return this.route('put', args);
  }
  override patch(...args: unknown[]) {
    return this.route('patch', args);
  }
  override delete(...args: unknown[]) {
    return this.route('delete', args);
  }
  override head(...args: unknown[]) {
    return this.route('head', args);
  }
  override options(...args: unknown[]) {
    return this.route('options', args);
  }
  override all(...args: unknown[]) {
    return this.route('all', args);
  }

  private route(method: RouteMethod, args: unknown[]): unknown {
    const [path] = args;
    const root = typeof path === 'string' && ROOT_ROUTED.has(method) ? apiRootOf(path) : null;
    const register = (target: Router) => (target[method] as (...a: unknown[]) => unknown).apply(target, args);
    if (root === null || root === '' || /[:*?(){}]/.test(root)) {
      return register(this.getInstance<Router>());
    }
    return register(this.routerOf(root));
  }

  private routerOf(root: string): Router {
    let router = this.routers.get(root);
    if (!router) {
      const app = this.getInstance<Application>();
      if (this.routers.size === 0) app.use(this.dispatch);
      router = Router({
        caseSensitive: app.get('case sensitive routing'),
        strict: app.get('strict routing'),
      });
      this.routers.set(root, router);
    }
    return router;
  }

  private readonly dispatch = (req: Request, res: Response, next: NextFunction): void => {
    // A root's router would answer an OPTIONS request it has no route for with its methods (Express's
    // default); Express's own list leaves it to the not-found handler, as it always did here.
    if (req.method === 'OPTIONS') return next();
    const root = apiRootOf(req.path);
    const router = root === null ? undefined : this.routers.get(root);
    if (router) router(req, res, next);
    else next();
  };
}
