import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuthenticationGuard } from './common/auth/authentication.guard';
import { RequireAuthGuard } from './common/auth/require-auth.guard';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import type { AppConfig } from './config/app.config';
import { IdempotencyGuard } from './platform/idempotency/idempotency.guard';
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
  it('lists the Express middlewares in their fixed order', () => {
    const stages = requestMiddlewares(deps);
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
    // Only the SCIM stage handles errors (those of the stages before it); the rest are ordinary middlewares.
    expect(stages.filter((stage) => stage.handler.length === 4).map((stage) => stage.name)).toEqual([
      'scim-pre-routing-error',
    ]);
  });

  it('registers the global guards in order, the pipe and the filter, and provides the POST guard', () => {
    const described = GLOBAL_ENHANCERS.map((provider) => {
      if (typeof provider === 'function') return provider.name;
      const { provide, useClass, useExisting } = provider as {
        provide: string;
        useClass?: { name: string };
        useExisting?: { name: string };
      };
      return `${provide}:${useClass?.name ?? useExisting?.name ?? 'factory'}`;
    });
    expect(described).toEqual([
      `${APP_GUARD}:${AuthenticationGuard.name}`,
      `${APP_GUARD}:${RateLimitGuard.name}`,
      `${APP_GUARD}:${RequireAuthGuard.name}`,
      `${APP_GUARD}:${InstanceScopeGuard.name}`,
      IdempotencyGuard.name,
      `${APP_PIPE}:factory`,
      ProblemDetailsFilter.name,
      `${APP_FILTER}:${ProblemDetailsFilter.name}`,
    ]);
  });
});
