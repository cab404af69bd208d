import { GUARDS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import {
  RequestMethod,
  type CanActivate,
  type INestApplication,
  type Provider,
  type RawBodyRequest,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, urlencoded, type RequestHandler } from 'express';
import { composeMiddlewares, type Middleware } from './common/http/compose-middlewares';
import { AuthenticationGuard } from './common/auth/authentication.guard';
import { RequireAuthGuard } from './common/auth/require-auth.guard';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import { corsMiddleware } from './common/http/cors.middleware';
import { httpMetricsMiddleware } from './common/http/http-metrics.middleware';
import { ApiKeyInstanceLookup, instanceScopeMiddleware } from './common/http/instance-scope.middleware';
import { legacyPathMiddleware } from './common/http/legacy-path.middleware';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { securityHeadersMiddleware } from './common/http/security-headers.middleware';
import {
  storableBodyMiddleware,
  storableRequestTargetMiddleware,
} from './common/http/storable-input.middleware';
import { createValidationPipe } from './common/validation/validation.pipe';
import type { AppConfig } from './config/app.config';
import { scimPreRoutingErrorMiddleware } from './modules/scim/scim-pre-routing-error.middleware';
import { IdempotencyGuard } from './platform/idempotency/idempotency.guard';
import { InstanceScopeGuard } from './platform/instance-scope/instance-scope.guard';
import type { AccessLine } from './platform/logging/app-logger';
import type { MetricsService } from './platform/metrics/metrics.service';
import { RateLimitGuard } from './platform/rate-limit/rate-limit.guard';

// The one place a request's path through the server is registered, in order:
// the Express middlewares below, then Nest's global guards, pipe and filter
// (GLOBAL_ENHANCERS) and the idempotency guard of POST routes (bindPostGuards).
// README.md "Request pipeline" describes each stage. It lives at the composition root, beside app.factory.ts and
// app.module.ts, because it assembles pieces from common/, platform/ and
// modules/ alike.

/** One Express stage: its name (README.md "Request pipeline") and its middleware. */
export interface MiddlewareStage {
  readonly name: string;
  readonly handler: Middleware;
}

/** What the middlewares need from the booted application. */
export interface MiddlewareDeps {
  config: AppConfig;
  metrics: MetricsService;
  accessLog: ((line: AccessLine) => void) | null;
  apiKeyInstance: ApiKeyInstanceLookup;
}

const OPENLINEAGE_PATH = '/api/v1.0/openlineage/';
const openLineageJson = json({ limit: '10mb' });
const openLineageBodyParser: RequestHandler = (req, res, next) =>
  req.path.startsWith(OPENLINEAGE_PATH) ? openLineageJson(req, res, next) : next();

// Signed inbound webhooks are verified over the exact bytes received (req.rawBody), as Nest's rawBody option keeps them.
const keepRawBody = (req: IncomingMessage, _res: ServerResponse, body: Buffer): void => {
  (req as RawBodyRequest<IncomingMessage>).rawBody = body;
};

function use(name: string, handler: Middleware): MiddlewareStage {
  return { name, handler };
}

/**
 * The Express middlewares in the order they run (createApp mounts them as one). Order matters: every
 * response (redirects, problems and preflights included) carries the request
 * id and the security headers, and is timed; preflights end at CORS, before
 * the legacy-path redirect and the rate limiter; the body check runs right
 * after the parsers; the instance scope opens after the parsers, which resume
 * the chain from stream callbacks that would not carry a scope opened before.
 */
export function requestMiddlewares(deps: MiddlewareDeps): MiddlewareStage[] {
  return [
    use('request-id', requestIdMiddleware),
    use('http-metrics', httpMetricsMiddleware(deps.metrics, deps.accessLog)),
    use('security-headers', securityHeadersMiddleware()),
    use('cors', corsMiddleware(deps.config.corsOrigins)),
    use('storable-request-target', storableRequestTargetMiddleware),
    use('legacy-path', legacyPathMiddleware),
    // OpenLineage batches outgrow the 100 kB default: that one route reads up to 10 MB (the later parser then skips).
    use('openlineage-json-body', openLineageBodyParser),
    // Nest's own parsers are off (createApp): these run where the body check can follow right after them.
    // SCIM clients send application/scim+json.
    use('json-body', json({ type: ['application/json', 'application/scim+json'], verify: keepRawBody })),
    use('urlencoded-body', urlencoded({ extended: true, verify: keepRawBody })),
    use('storable-body', storableBodyMiddleware),
    use('scim-pre-routing-error', scimPreRoutingErrorMiddleware),
    use('instance-scope', instanceScopeMiddleware(deps.apiKeyInstance)),
  ];
}

/**
 * The stages as the one Express middleware createApp mounts: one layer of
 * Express's router instead of one per stage (compose-middlewares.ts).
 */
export function requestPipelineMiddleware(deps: MiddlewareDeps): RequestHandler {
  return composeMiddlewares(requestMiddlewares(deps).map((stage) => stage.handler));
}

/**
 * Nest's global enhancers. Guards run in the order listed: recognise the
 * caller, rate-limit (so a 401 is counted and carries the headers), demand
 * authentication, then move onto the caller's instance. Route guards
 * (@SpaceRole, @SuperadminOnly, ...) run after all of them.
 */
export const GLOBAL_ENHANCERS: Provider[] = [
  { provide: APP_GUARD, useClass: AuthenticationGuard },
  { provide: APP_GUARD, useClass: RateLimitGuard },
  { provide: APP_GUARD, useClass: RequireAuthGuard },
  { provide: APP_GUARD, useClass: InstanceScopeGuard },
  // Not global: bound to the POST routes by bindPostGuards.
  IdempotencyGuard,
  { provide: APP_PIPE, useFactory: createValidationPipe },
  // A provider of its own as well: the idempotency guard sends through it an error met while an answer goes out.
  ProblemDetailsFilter,
  { provide: APP_FILTER, useExisting: ProblemDetailsFilter },
];

/**
 * Binds the idempotency guard to every POST handler, the only requests it acts
 * on, as the handler's last guard (after the global guards and the route's own,
 * where an interceptor would start), before the routes are registered
 * (createApp). The bound object is this application's instance (Nest takes an
 * instance in the guards metadata as it is); binding again, for another
 * application in the same process, replaces it.
 */
export function bindPostGuards(app: INestApplication): void {
  const idempotency = app.get(IdempotencyGuard);
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const controller of module.controllers.values()) {
      const prototype = (controller.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name] as object;
        if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
        const bound = (Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[];
        Reflect.defineMetadata(
          GUARDS_METADATA,
          [...bound.filter((one) => !(one instanceof IdempotencyGuard)), idempotency as CanActivate],
          handler,
        );
      }
    }
  }
}
