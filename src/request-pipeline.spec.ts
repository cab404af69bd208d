import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AuthenticationGuard } from './common/auth/authentication.guard';
import { RequireAuthGuard } from './common/auth/require-auth.guard';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import type { AppConfig } from './config/app.config';
import { IdempotencyInterceptor } from './platform/idempotency/idempotency.interceptor';
import { InstanceScopeGuard } from './platform/instance-scope/instance-scope.guard';
import type { MetricsService } from './platform/metrics/metrics.service';
import { RateLimitGuard } from './platform/rate-limit/rate-limit.guard';
import { GLOBAL_ENHANCERS, requestMiddlewares } from './request-pipeline';

// The middlewares only read the CORS origins of the configuration and touch no dependency while built.
const deps = {
  config: { corsOrigins: [] } as unknown as AppConfig,
  metrics: {} as MetricsService,
  accessLog: null,
  apiKeyInstance: () => Promise.resolve(null),
};

describe('request pipeline', () => {
  it('mounts the Express middlewares in their fixed order', () => {
    const mounted: string[] = [];
    const app = {
      use: () => mounted.push('use'),
      useBodyParser: (type: string) => mounted.push(`body:${type}`),
    } as unknown as NestExpressApplication;
    const stages = requestMiddlewares(deps);
    for (const stage of stages) stage.mount(app);

    expect(stages.map((stage) => stage.name)).toEqual([
      'request-id',
      'http-metrics',
      'security-headers',
      'cors',
      'storable-request-target',
      'legacy-path',
      'openlineage-json-body',
      'json-body',
      'urlencoded-body',
      'storable-body',
      'scim-pre-routing-error',
      'instance-scope',
    ]);
    // Each stage mounts exactly one handler; the body parsers go through Nest's own (rawBody kept).
    expect(mounted).toEqual([
      ...Array<string>(7).fill('use'),
      'body:json',
      'body:urlencoded',
      ...Array<string>(3).fill('use'),
    ]);
  });

  it('registers the global guards in order, the pipe and the filter, and provides the POST interceptor', () => {
    const described = GLOBAL_ENHANCERS.map((provider) => {
      if (typeof provider === 'function') return provider.name;
      const { provide, useClass } = provider as { provide: string; useClass?: { name: string } };
      return `${provide}:${useClass?.name ?? 'factory'}`;
    });
    expect(described).toEqual([
      `${APP_GUARD}:${AuthenticationGuard.name}`,
      `${APP_GUARD}:${RateLimitGuard.name}`,
      `${APP_GUARD}:${RequireAuthGuard.name}`,
      `${APP_GUARD}:${InstanceScopeGuard.name}`,
      IdempotencyInterceptor.name,
      `${APP_PIPE}:factory`,
      `${APP_FILTER}:${ProblemDetailsFilter.name}`,
    ]);
  });
});
