import { Logger } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsService } from '../../platform/metrics/metrics.service';

const accessLog = new Logger('HTTP');

/**
 * Times every request, labels it with the matched route template
 * (`unmatched` otherwise), and writes an access-log line with the request id
 * at debug level (LOG_LEVEL=debug).
 */
export function httpMetricsMiddleware(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      metrics.observe(req.method, route, res.statusCode, seconds);
      accessLog.debug(
        `${req.method} ${req.originalUrl.split('?')[0]} ${res.statusCode} ${(seconds * 1000).toFixed(1)} ms [request ${req.id}]`,
      );
    });
    next();
  };
}
