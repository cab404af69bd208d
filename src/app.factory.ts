import { LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { AppModule, AppModuleOptions } from './app.module';
import { httpMetricsMiddleware } from './common/http/http-metrics.middleware';
import { API_PREFIX, legacyPathMiddleware } from './common/http/legacy-path.middleware';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import {
  storableBodyMiddleware,
  storableRequestTargetMiddleware,
} from './common/http/storable-input.middleware';
import { setupSwagger } from './common/openapi/swagger.setup';
import { createValidationPipe } from './common/validation/validation.pipe';
import { LOG_LEVELS, LogLevel } from './config/app.config';
import { MetricsService } from './platform/metrics/metrics.service';

function nestLogLevels(level: LogLevel): NestLogLevel[] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1) as NestLogLevel[];
}

/** Builds the configured application; used by main.ts and by the e2e tests alike. */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), {
    logger: nestLogLevels(options.config.logLevel),
  });
  app.disable('x-powered-by');
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.use(storableRequestTargetMiddleware);
  app.use(legacyPathMiddleware);
  app.use(cookieParser());
  // The parsers Nest would add at init, added here so that the body check runs right after them.
  app.useBodyParser('json');
  app.useBodyParser('urlencoded', { extended: true });
  app.use(storableBodyMiddleware);
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app);
  return app;
}
