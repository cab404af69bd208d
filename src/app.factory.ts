import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule, AppModuleOptions } from './app.module';
import { API_PREFIX } from './common/http/legacy-path.middleware';
import { RoutesByRootAdapter } from './common/http/routes-by-root.adapter';
import { setupSwagger } from './common/openapi/swagger.setup';
import { AppLogger, logDestination } from './platform/logging/app-logger';
import { ApiKeysService } from './modules/api-keys/api-keys.service';
import { MetricsService } from './platform/metrics/metrics.service';
import { bindPostGuards, requestPipelineMiddleware } from './request-pipeline';

/** Builds the configured application; used by main.ts and by the e2e tests alike. */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const { config } = options;
  const logger = new AppLogger(config, await logDestination(config.logFormat));
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(options),
    // Routes matched within their API root only (routes-by-root.adapter.ts).
    new RoutesByRootAdapter(),
    // The body parsers are stages of the request pipeline (request-pipeline.ts), which keep req.rawBody.
    { logger, bodyParser: false },
  );
  app.disable('x-powered-by');
  // Before any middleware reads req.ip, req.secure or req.protocol.
  app.set('trust proxy', config.trustProxy);
  // The middlewares in their order (request-pipeline.ts); the guards, pipe and filter are AppModule's.
  const apiKeys = app.get(ApiKeysService);
  app.use(
    requestPipelineMiddleware({
      config,
      metrics: app.get(MetricsService),
      accessLog: config.accessLog ? logger.accessLog() : null,
      apiKeyInstance: (secret) => apiKeys.instanceOfKey(secret),
    }),
  );
  bindPostGuards(app);
  app.setGlobalPrefix(API_PREFIX);
  setupSwagger(app);
  return app;
}
