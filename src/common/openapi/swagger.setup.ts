import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemDetails, ValidationProblem } from './problem.schema';

type Operation = {
  parameters?: Record<string, unknown>[];
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
  'x-public'?: boolean;
  'x-rate-limit'?: { exempt?: boolean; counted?: boolean };
  'x-required-credential'?: string;
};

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/** Every counted operation may answer 429 (rate limits); exempt and uncounted ones never do. */
const RATE_LIMITED = {
  description: 'Rate limit exceeded; retry after `Retry-After` seconds.',
  headers: {
    'Retry-After': integerHeader('Seconds to wait before retrying.'),
    'X-RateLimit-Limit': integerHeader('Requests allowed in the window closest to running out.'),
    'X-RateLimit-Remaining': integerHeader('Requests left in that window.'),
    'X-RateLimit-Reset': integerHeader('Unix time (seconds) when that window resets.'),
  },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
};

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
});

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe (IETF httpapi Idempotency-Key draft, as Stripe uses it): 1 to 255 printable ASCII characters, ' +
    'e.g. a UUID made by the client for one logical request. For 24 hours, the same key from the same caller ' +
    '(API key, else user) with the same method, path and body replays the first response (status, body, `Location`, ' +
    'with `Idempotent-Replayed: true`) without running the request again; the same key with a different request ' +
    'answers 422 (`idempotency_key_reused`), and while the first request still runs, 409 (`idempotency_key_in_use`, ' +
    'with `Retry-After`). 4xx answers are replayed too; a 5xx answer, a response over 256 KiB or one that is not ' +
    'JSON is not kept, so the key can be retried. A malformed key answers 422. Anonymous requests and uploads ' +
    '(multipart or raw bodies) are not made idempotent: there the key is only checked.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

/** The `Idempotency-Key` parameter and its answers on every POST (see IdempotencyInterceptor). */
function documentIdempotencyKey(operation: Operation): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    { $ref: '#/components/parameters/IdempotencyKey' },
  ];
  operation.responses ??= {};
  operation.responses['409'] ??= problemResponse(
    'A request with the same `Idempotency-Key` is still being processed.',
  );
  operation.responses['422'] ??= problemResponse(
    'The `Idempotency-Key` is malformed, or was used for a different request.',
  );
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;

/** Every route refuses unstorable text in its query or body (storable-input middleware), so each may answer 422. */
const UNSTORABLE_INPUT = {
  description:
    'The request fails validation: on every route, a query parameter or body field holding a NUL character or an unpaired UTF-16 surrogate is refused.',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ValidationProblem' } } },
};

type SchemaNode = { [key: string]: unknown };

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null;

/**
 * Tidies what the swagger generator emits for a referenced enum: an `allOf`
 * holding only a `$ref` becomes the `$ref` itself, and a nullable one gets
 * the `type` OpenAPI 3.0 requires beside `nullable` (taken from the target).
 */
function tidySchemas(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaNode>;
  const targetOf = (node: SchemaNode): SchemaNode | undefined => {
    const ref = node.$ref;
    return typeof ref === 'string' ? schemas[ref.replace('#/components/schemas/', '')] : undefined;
  };
  const pending: unknown[] = [document];
  while (pending.length) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (!isNode(node)) continue;
    for (const [key, child] of Object.entries(node)) {
      if (isNode(child) && Array.isArray(child.allOf) && child.allOf.length === 1 && isNode(child.allOf[0])) {
        const [only] = child.allOf;
        if (Object.keys(child).length === 1) {
          node[key] = only;
          continue;
        }
        if (child.nullable === true && child.type === undefined && targetOf(only)?.type) {
          child.type = targetOf(only)?.type;
        }
      }
      pending.push(child);
    }
  }
}

/**
 * Builds the OpenAPI document from the controllers and DTO decorators. Public
 * routes get an empty security list; every other route the bearer scheme
 * and its 401 (the global guard is closed by default).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Verity API')
    .setDescription(
      'Verity, an open data-governance platform: catalog, quality, incidents, policies, risks, notifications, webhooks and AI administration. ' +
        'Errors are RFC 9457 problem details (`application/problem+json`); invalid input answers 422 with `errors[]`. ' +
        "Browser apps on other origins are served when their origin is listed in the server's `CORS_ORIGINS` (credentials allowed, for the refresh cookie); " +
        'they may send `Authorization`, `Content-Type`, `Idempotency-Key` and `X-Request-Id`, and can read `X-Request-Id`, `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, ' +
        '`RateLimit`, `RateLimit-Policy`, `Retry-After`, `Location`, `Idempotent-Replayed`, `Deprecation`, `Link`, `Content-Disposition` and `WWW-Authenticate`. ' +
        'Ids are UUIDs as PostgreSQL reads them (8-4-4-4-12 hex digits, any case, any version or variant). ' +
        'On every route, text that cannot be stored (a NUL character or an unpaired UTF-16 surrogate) is refused before the route runs: ' +
        '422 naming the query parameter or body field, 404 in a path segment, 400 for a path that is not valid percent-encoded UTF-8; ' +
        'other control characters are left to each field (slugs, emails and ids refuse them, free text keeps tabs and newlines).',
    )
    .setVersion('1.0')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Relative: the paths carry the /api/v1.0 prefix and the document is served by the API itself.
    .addServer('/', 'This server')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An access token (JWT) from /auth/token, or an API key.',
      },
      'bearer',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'A SCIM token from POST /admin/scim-tokens (SCIM routes only).',
      },
      'scim',
    )
    .addOAuth2(
      { type: 'oauth2', flows: { password: { tokenUrl: '/api/v1.0/auth/token', scopes: {} } } },
      'oauth2',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ProblemDetails, ValidationProblem],
    operationIdFactory: (_controller, method) => method,
  });
  document.components ??= {};
  document.components.parameters = { ...document.components.parameters, IdempotencyKey: IDEMPOTENCY_KEY };
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (path as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      // SCIM routes take SCIM tokens and answer SCIM errors; their clients never send Idempotency-Key.
      const scim = operation['x-required-credential'] === 'scim-token';
      if (method === 'post' && !scim) documentIdempotencyKey(operation);
      operation.responses ??= {};
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) {
        operation.responses['422'] = UNSTORABLE_INPUT;
      }
      const limits = operation['x-rate-limit'];
      if (!limits?.exempt && limits?.counted !== false) {
        operation.responses['429'] ??= RATE_LIMITED;
      }
      if (scim) {
        operation.security = [{ scim: [] }];
        continue;
      }
      if (operation['x-public']) {
        operation.security = [];
        continue;
      }
      operation.security = [{ bearer: [] }, { oauth2: [] }];
      operation.responses['401'] ??= {
        description: 'Missing, malformed, expired or revoked credential.',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
      };
    }
  }
  tidySchemas(document);
  return document;
}

/** Swagger UI at /api/v1.0/docs (assets served by this app) and the document at /api/v1.0/openapi.json. */
export function setupSwagger(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    useGlobalPrefix: true,
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Verity API',
    // No validator badge: it would load an image from validator.swagger.io (the page uses local assets only).
    // Tags start collapsed: over a hundred operations expanded at once is more than the page renders well.
    swaggerOptions: { persistAuthorization: true, validatorUrl: null, docExpansion: 'none' },
  });
}
