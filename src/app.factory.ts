import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { AppModule, AppModuleOptions } from './app.module';
import { corsMiddleware } from './common/http/cors.middleware';
import { httpMetricsMiddleware } from './common/http/http-metrics.middleware';
import { instanceScopeMiddleware } from './common/http/instance-scope.middleware';
import { API_PREFIX, legacyPathMiddleware } from './common/http/legacy-path.middleware';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { securityHeadersMiddleware } from './common/http/security-headers.middleware';
import {
  storableBodyMiddleware,
  storableRequestTargetMiddleware,
} from './common/http/storable-input.middleware';
import { setupSwagger } from './common/openapi/swagger.setup';
import { createValidationPipe } from './common/validation/validation.pipe';
import { AppLogger } from './platform/logging/app-logger';
import { ApiKeysService } from './modules/api-keys/api-keys.service';
import { scimPreRoutingErrorMiddleware } from './modules/scim/scim-pre-routing-error.middleware';
import { MetricsService } from './platform/metrics/metrics.service';

/** Builds the configured application; used by main.ts and by the e2e tests alike. */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const { config } = options;
  const logger = new AppLogger(config);
  // rawBody: signed inbound webhooks are verified over the exact bytes received (req.rawBody).
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), {
    logger,
    rawBody: true,
  });
  app.disable('x-powered-by');
  // Before any middleware reads req.ip, req.secure or req.protocol.
  app.set('trust proxy', config.trustProxy);
  // Order matters: every response (redirects, problems and preflights included)
  // carries the request id and the security headers, and is timed; preflights
  // end at CORS, before the legacy-path redirect and the rate limiter.
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware(app.get(MetricsService), config.accessLog ? logger.accessLog() : null));
  app.use(securityHeadersMiddleware());
  app.use(corsMiddleware(config.corsOrigins));
  app.use(storableRequestTargetMiddleware);
  app.use(legacyPathMiddleware);
  app.use(cookieParser());
  // The parsers Nest would add at init, added here so that the body check runs right after them.
  // SCIM clients send application/scim+json.
  app.useBodyParser('json', { type: ['application/json', 'application/scim+json'] });
  app.useBodyParser('urlencoded', { extended: true });
  app.use(storableBodyMiddleware);
  app.use(scimPreRoutingErrorMiddleware);
  const apiKeys = app.get(ApiKeysService);
  app.use(instanceScopeMiddleware((secret) => apiKeys.instanceOfKey(secret)));
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app);
  return app;
}
