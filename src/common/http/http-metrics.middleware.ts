import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsService } from '../../platform/metrics/metrics.service';
import type { AccessLine } from '../../platform/logging/app-logger';

/**
 * Times every request, labels it with the matched route template
 * (`unmatched` otherwise), and, when `accessLog` is given, writes one
 * access-log line with the request id, the user, the route template, the
 * status and the duration.
 */
export function httpMetricsMiddleware(
  metrics: MetricsService,
  accessLog: ((line: AccessLine) => void) | null,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      metrics.observe(req.method, route, res.statusCode, seconds);
      accessLog?.({
        request_id: req.id,
        user_id: req.actor?.userId,
        method: req.method,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 10_000) / 10,
      });
    });
    next();
  };
}
