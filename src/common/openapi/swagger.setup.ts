import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemDetails } from './problem.schema';
import { TAG_DESCRIPTIONS } from './tags';

type Response = {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
};

type Operation = {
  tags?: string[];
  parameters?: Record<string, unknown>[];
  requestBody?: unknown;
  security?: Record<string, string[]>[];
  responses?: Record<string, Response>;
  'x-public'?: boolean;
  'x-ignores-caller'?: boolean;
  'x-rate-limit'?: { exempt?: boolean; counted?: boolean };
  'x-required-credential'?: string;
};

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const stringHeader = (description: string) => ({ description, schema: { type: 'string' } });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The rate-limit headers (see GET /rate-limit), on every answer of every
 * operation that is counted or reports the budget. None is required: an
 * answer refused before the limiter runs (an unparsable body, say) has none.
 */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': integerHeader('Requests allowed in the window closest to running out.'),
  'X-RateLimit-Remaining': integerHeader('Requests left in that window.'),
  'X-RateLimit-Reset': integerHeader('Unix time (seconds) when that window resets.'),
  RateLimit: stringHeader('The IETF `RateLimit` field: what is left of the window closest to running out.'),
  'RateLimit-Policy': stringHeader(
    'The IETF `RateLimit-Policy` field: every window the request counts against.',
  ),
};

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/** Every counted operation may answer 429 (rate limits); exempt and uncounted ones never do. */
const RATE_LIMITED = {
  description: 'Rate limit exceeded; retry after `Retry-After` seconds.',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
};

const INSTANCE_ID = {
  name: 'X-Instance-Id',
  in: 'header' as const,
  required: false,
  description:
    'Confirms the instance of the credential (any one is enough: the credential names its instance). ' +
    "When sent with a credential, it must name the credential's own instance: any other value answers 403 " +
    '(`instance_mismatch`), whether or not it names an instance. Without a credential it is not looked at.',
  schema: { type: 'string', format: 'uuid' },
};

const INSTANCE_MISMATCH = "`X-Instance-Id` does not name the credential's instance (`instance_mismatch`).";

const SCIM_INVALID_VALUE =
  'SCIM error: invalidFilter, invalidValue, invalidPath, invalidSyntax, noTarget or mutability; ' +
  'or a query parameter or body field holding text that cannot be stored (invalidValue).';

const MALFORMED_REQUEST =
  'The request path is not valid percent-encoded UTF-8, or the request body is not valid JSON.';

const UNSTORABLE_PATH =
  'A path segment holds a NUL character or an unpaired UTF-16 surrogate: nothing has this path.';

const INSTANCE_UNAVAILABLE =
  "The database of the caller's instance is unavailable (`instance_database_unavailable`): retry after `Retry-After` seconds.";

const REDIRECT_BODY = {
  'text/plain': { schema: { type: 'string' } },
  'text/html': { schema: { type: 'string' } },
};

/** Any route may fail unexpectedly; the body carries `request_id` to quote. */
const UNEXPECTED = {
  description: 'An unexpected error; quote `request_id` when reporting it.',
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

/** The `Idempotency-Key` parameter and its answers on every POST (see IdempotencyGuard). */
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
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
};

type SchemaNode = { [key: string]: unknown };

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null;

/** The alternative that admits `null` beside a reference, for strict OpenAPI 3.0 validators. */
const nullOf = (type: unknown) => ({ type, nullable: true, enum: [null] });

/**
 * Tidies what the swagger generator emits, for strict OpenAPI 3.0
 * validators (Prism, Redocly, Spectral), which apply `allOf`, `oneOf` and
 * `anyOf` to `null` too and admit `null` in an enum only when listed:
 * - an `allOf` holding only a `$ref` becomes the `$ref` itself;
 * - a nullable reference (`nullable` beside a one-`$ref` `allOf`) becomes
 *   `anyOf: [{$ref}, {type, nullable: true, enum: [null]}]`: `nullable` on the
 *   `allOf` would not admit `null`, and a one-schema `oneOf` is flagged by Redocly;
 * - a nullable enum lists `null`.
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
    if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) {
      node.enum = [...(node.enum as unknown[]), null];
    }
    for (const [key, child] of Object.entries(node)) {
      if (isNode(child) && Array.isArray(child.allOf) && child.allOf.length === 1 && isNode(child.allOf[0])) {
        const [only] = child.allOf;
        if (Object.keys(child).length === 1) {
          node[key] = only;
          continue;
        }
        if (child.nullable === true) {
          const { allOf: _allOf, nullable: _nullable, type, ...rest } = child;
          node[key] = { ...rest, anyOf: [only, nullOf(type ?? targetOf(only)?.type)] };
          continue;
        }
      }
      pending.push(child);
    }
  }
}

/** Every tag an operation uses, in alphabetical order, with its description. */
function documentTags(document: OpenAPIObject): void {
  const used = new Set<string>();
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      for (const tag of (path as Record<string, Operation | undefined>)[method]?.tags ?? []) used.add(tag);
    }
  }
  document.tags = [...used].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
}

/** Adds `sentence` to the description of `status`, or documents it as a problem with that description. */
function addProblem(responses: Record<string, Response>, status: string, sentence: string): void {
  const known = responses[status];
  responses[status] = known
    ? { ...known, description: `${known.description ?? ''} Or: ${sentence}`.trim() }
    : problemResponse(sentence);
}

/** What every operation answers beside its own responses: security, shared statuses, headers and parameters. */
function documentOperation(method: (typeof METHODS)[number], operation: Operation): void {
  // SCIM routes take SCIM tokens and answer SCIM errors; their clients never send Idempotency-Key.
  const scim = operation['x-required-credential'] === 'scim-token';
  if (method === 'post' && !scim) documentIdempotencyKey(operation);
  const responses = (operation.responses ??= {});
  const pathParameters = (operation.parameters ?? []).some((p) => p.in === 'path');
  const limits = operation['x-rate-limit'];
  if (!limits?.exempt && limits?.counted !== false) responses['429'] ??= RATE_LIMITED;
  if (scim) {
    operation.security = [{ scim: [] }];
    // Every SCIM answer is a SCIM error body, those of the storable-input check and of a crash included.
    const scimError = responses['401']?.content;
    responses['400'] ??= { description: SCIM_INVALID_VALUE, content: scimError };
    responses['500'] ??= { description: 'SCIM error: an unexpected error.', content: scimError };
  } else {
    // The storable-input middleware runs before every route (see the document's description).
    responses['422'] ??= UNSTORABLE_INPUT;
    if (pathParameters || operation.requestBody) addProblem(responses, '400', MALFORMED_REQUEST);
    if (pathParameters) addProblem(responses, '404', UNSTORABLE_PATH);
    if (operation.requestBody) responses['413'] ??= problemResponse('The request body is too large.');
    responses['500'] ??= UNEXPECTED;
    if (operation['x-public']) {
      operation.security = [];
    } else {
      operation.security = [{ bearer: [] }, { oauth2: [] }];
      responses['401'] ??= problemResponse('Missing, malformed, expired or revoked credential.');
    }
    // A caller known by a credential is held to `X-Instance-Id` and served from their instance's database.
    if (!operation['x-ignores-caller']) {
      operation.parameters = [
        ...(operation.parameters ?? []),
        { $ref: '#/components/parameters/InstanceId' },
      ];
      addProblem(responses, '403', INSTANCE_MISMATCH);
      addProblem(responses, '503', INSTANCE_UNAVAILABLE);
    }
  }
  // Each answer is a copy: the shared ones above get headers of their own operation.
  for (const [status, response] of Object.entries(responses)) {
    const headers = { ...response.headers };
    if (!limits?.exempt) {
      for (const name of Object.keys(RATE_LIMIT_HEADERS)) headers[name] ??= headerRef(name);
    }
    if (status === '429') headers['Retry-After'] = RETRY_AFTER;
    if (status === '503') headers['Retry-After'] ??= { ...RETRY_AFTER, required: false };
    const copy = Object.keys(headers).length ? { ...response, headers } : { ...response };
    // Express writes a short text (or HTML, for a browser) beside a redirect's Location.
    if (/^3\d\d$/.test(status) && !copy.content) copy.content = REDIRECT_BODY;
    responses[status] = copy;
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
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
    extraModels: [ProblemDetails],
    operationIdFactory: (_controller, method) => method,
  });
  document.components ??= {};
  document.components.parameters = {
    ...document.components.parameters,
    IdempotencyKey: IDEMPOTENCY_KEY,
    InstanceId: INSTANCE_ID,
  };
  document.components.headers = { ...document.components.headers, ...RATE_LIMIT_HEADERS };
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (path as Record<string, Operation | undefined>)[method];
      if (operation) documentOperation(method, operation);
    }
  }
  documentTags(document);
  tidySchemas(document);
  return document;
}

/**
 * Swagger UI at /api/v1.0/docs (assets served by this app) and the document at /api/v1.0/openapi.json.
 * The document is built on its first request, not at start: building it is a tenth of a worker's
 * time to ready, and most processes never serve it.
 */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    useGlobalPrefix: true,
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Verity API',
    // No validator badge: it would load an image from validator.swagger.io (the page uses local assets only).
    // Tags start collapsed: over a hundred operations expanded at once is more than the page renders well.
    swaggerOptions: { persistAuthorization: true, validatorUrl: null, docExpansion: 'none' },
  });
}
