import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsService } from '../../platform/metrics/metrics.service';

/** Times every request and labels it with the matched route template (`unmatched` otherwise). */
export function httpMetricsMiddleware(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      metrics.observe(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
