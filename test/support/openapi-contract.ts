import type { Server } from 'node:http';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';

/**
 * Every answer an e2e suite gets from the app is held to the OpenAPI
 * document the same app serves at /api/v1.0/openapi.json: the status is
 * documented for the operation, the content type for that status, every
 * header the response declares required is there (and every declared one
 * present has a value of its schema), and a JSON body matches the schema.
 *
 * OpenAPI 3.0 schemas are validated as strict validators (Prism, Redocly,
 * Spectral) read them: `nullable: true` adds `null` to `type` only, so a
 * nullable enum must list `null`, and `allOf`/`oneOf`/`anyOf` still apply to
 * `null`. On top of that, an object schema that lists `properties` and says
 * nothing of `additionalProperties` is closed: a member the server sends that
 * the document does not name is a violation (the contract is exact).
 */

const API = '/api/v1.0';
const MAX_ERRORS = 8;
const DOCUMENT_PATH = `${API}/openapi.json`;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Answers no operation documents, and why. Kept short on purpose: a route
 * that answers belongs in the document, not here.
 */
const NOT_OPERATIONS: { why: string; matches: (method: string, path: string) => boolean }[] = [
  // A CORS preflight is answered by the CORS middleware for any path.
  { why: 'CORS preflight', matches: (method) => method === 'OPTIONS' },
  // Paths outside the prefix are the legacy 308 redirects (and their 404): see http-edge.
  { why: 'outside the API prefix', matches: (_m, path) => !path.startsWith(`${API}/`) },
  // Swagger UI's page and assets, and the document itself (JSON and YAML).
  {
    why: 'API documentation',
    matches: (_m, path) =>
      path === `${API}/docs` ||
      path.startsWith(`${API}/docs/`) ||
      /^\/api\/v1\.0\/openapi\.(json|yaml)$/.test(path),
  },
];

/** What is checked of one exchange, from any client (supertest, fetch, node:http). */
export interface Exchange {
  method: string;
  /** Absolute or origin-relative URL of the request. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body text, when the body is text; undefined for binary or unread bodies. */
  text?: string;
}

interface HeaderObject {
  required?: boolean;
  schema?: object;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: object }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface OpenApiDocument {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { schemas?: Record<string, object> };
}

interface Route {
  template: string;
  pattern: RegExp;
  /** Literal segments win over parameters: `/issues/attachments/{id}` before `/issues/{id}/…`. */
  literals: number;
  item: OpenApiDocument['paths'][string];
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const isJsonMedia = (type: string) => type === 'application/json' || /^application\/[^;]*\+json$/.test(type);

/** `*\/*`, `text/*` or an exact type. */
function mediaRangeMatches(range: string, type: string): boolean {
  if (range === '*/*') return true;
  if (range.endsWith('/*')) return type.startsWith(range.slice(0, -1));
  return range === type;
}

/** OpenAPI 3.0 formats ajv-formats does not know: only their type is checked. */
const OPENAPI_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

type SchemaNode = Record<string, unknown>;
const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Closes every object schema that lists properties and is silent on additional
 * ones (see above). Each schema closes over what it evaluates itself: the
 * generator merges inherited DTO properties, and the document composes no
 * object from several `allOf` parts (that would need the whole to be closed instead).
 */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(closeObjects);
  if (!isNode(schema) || typeof schema.$ref === 'string') return;
  if (isNode(schema.properties)) {
    if (schema.additionalProperties === undefined) schema.unevaluatedProperties = false;
    Object.values(schema.properties).forEach(closeObjects);
  }
  for (const key of ['items', 'not', 'additionalProperties']) closeObjects(schema[key]);
  for (const key of ['allOf', 'anyOf', 'oneOf']) closeObjects(schema[key]);
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const params = Object.entries(error.params)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(', ');
  return `body ${where}: ${error.keyword} ${error.message}${params ? ` (${params})` : ''} [schema ${error.schemaPath}]`;
}

const compiledDocuments = new Map<string, OpenApiContract>();

export class OpenApiContract {
  private readonly ajv = new Ajv2019({ strict: false, allErrors: true });
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    for (const format of OPENAPI_FORMATS) this.ajv.addFormat(format, true);
    const copy = structuredClone(document) as OpenApiDocument;
    for (const schema of Object.values(copy.components?.schemas ?? {})) closeObjects(schema);
    for (const item of Object.values(copy.paths)) {
      for (const method of METHODS) {
        for (const response of Object.values(item[method]?.responses ?? {})) {
          for (const media of Object.values(response.content ?? {})) closeObjects(media.schema);
        }
      }
    }
    this.ajv.addSchema(copy, 'openapi.json');
    this.routes = Object.entries(document.paths)
      .map(([template, item]) => {
        const segments = template.split('/');
        const pattern = segments
          .map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('/');
        return {
          template,
          // Express routes are not strict about a trailing slash.
          pattern: new RegExp(`^${pattern.replace(/\/$/, '')}/?$`),
          literals: segments.filter((s) => !s.startsWith('{')).length,
          item,
        };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  /** The document as `app` serves it (fetched once, without being checked itself). */
  static async of(server: Server): Promise<OpenApiContract> {
    const res = await request(server).get(DOCUMENT_PATH);
    if (res.status !== 200) throw new Error(`${DOCUMENT_PATH} answered ${res.status}`);
    // Apps of one worker serve the same document: compile it once.
    let contract = compiledDocuments.get(res.text);
    if (!contract) {
      contract = new OpenApiContract(res.body as OpenApiDocument);
      compiledDocuments.set(res.text, contract);
    }
    return contract;
  }

  /** The violations of one exchange, as sentences naming the operation; empty when it conforms. */
  violations(exchange: Exchange): string[] {
    const method = exchange.method.toUpperCase();
    const path = new URL(exchange.url, 'http://app.test').pathname;
    if (NOT_OPERATIONS.some((rule) => rule.matches(method, path))) return [];
    // HEAD is answered by the GET route, without a body.
    const lookup = (method === 'HEAD' ? 'get' : method.toLowerCase()) as (typeof METHODS)[number];
    const route = this.routes.find((r) => r.pattern.test(path) && r.item[lookup]);
    const status = exchange.status;
    if (!route) {
      // An unknown route (or method) answers 404 from the router: nothing documents it, nothing to hold it to.
      return status === 404
        ? []
        : [`${method} ${path} answered ${status}, but no operation documents this route`];
    }
    const operation = route.item[lookup]!;
    const name = `${method} ${route.template} answered ${status}`;
    const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find(
      (key) => key in operation.responses,
    );
    if (!statusKey) {
      const documented = Object.keys(operation.responses).join(', ');
      return [`${name}, which the operation does not document (it documents ${documented})`];
    }
    const response = operation.responses[statusKey];
    const pointer = `#/paths/${escapePointer(route.template)}/${lookup}/responses/${statusKey}`;
    return [
      ...this.headerViolations(exchange, response, pointer),
      ...this.bodyViolations(exchange, response, pointer, method === 'HEAD'),
    ].map((violation) => `${name}: ${violation}`);
  }

  private headerViolations(exchange: Exchange, response: ResponseObject, pointer: string): string[] {
    const found: string[] = [];
    for (const [header, headerObject] of Object.entries(response.headers ?? {})) {
      const [declared, at] = this.resolve(headerObject, `${pointer}/headers/${escapePointer(header)}`);
      const raw = exchange.headers[header.toLowerCase()];
      if (raw === undefined) {
        if (declared.required) found.push(`header ${header}: required, but absent`);
        continue;
      }
      if (!declared.schema) continue;
      const value = Array.isArray(raw) ? raw.join(', ') : raw;
      const type = (declared.schema as { type?: string }).type;
      const typed = type === 'integer' || type === 'number' ? Number(value) : value;
      const validate = this.validator(`${at}/schema`);
      if (!validate(typed)) {
        found.push(
          `header ${header}: ${JSON.stringify(value)} ${validate.errors!.map((e) => `${e.keyword} ${e.message}`).join('; ')}`,
        );
      }
    }
    return found;
  }

  private bodyViolations(
    exchange: Exchange,
    response: ResponseObject,
    pointer: string,
    head: boolean,
  ): string[] {
    const contentType = exchange.headers['content-type'];
    const type = typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : undefined;
    const documented = Object.keys(response.content ?? {});
    if (!type) {
      const length = exchange.headers['content-length'];
      const empty = head || exchange.text === undefined || exchange.text === '' || length === '0';
      if (documented.length === 0 || empty) return [];
      return [`a body without a Content-Type, where the document has ${documented.join(', ')}`];
    }
    const range = documented.find((r) => mediaRangeMatches(r, type));
    if (!range) {
      return [
        documented.length
          ? `content type ${type}, where the document has ${documented.join(', ')}`
          : `content type ${type}, where the document has no body`,
      ];
    }
    const schema = response.content![range].schema as { format?: string } | undefined;
    // A file (`format: binary`) is bytes whatever its type, JSON included.
    if (head || !schema || schema.format === 'binary' || !isJsonMedia(type) || exchange.text === undefined)
      return [];
    let body: unknown;
    try {
      body = JSON.parse(exchange.text);
    } catch {
      return [`a ${type} body that is not JSON`];
    }
    // Most answers name a component: compile each component once, not once per answer that names it.
    const ref = (schema as { $ref?: string }).$ref;
    const validate = this.validator(ref ?? `${pointer}/content/${escapePointer(range)}/schema`);
    if (validate(body)) return [];
    const errors = validate.errors!.map(describeError);
    // An error repeated on every item of a long list says no more than the first few.
    return errors.length > MAX_ERRORS
      ? [...errors.slice(0, MAX_ERRORS), `… and ${errors.length - MAX_ERRORS} more errors in the body`]
      : errors;
  }

  /** A header object, or the one its `$ref` names, with its JSON pointer in the document. */
  private resolve(node: HeaderObject & { $ref?: string }, pointer: string): [HeaderObject, string] {
    if (!node.$ref) return [node, pointer];
    const target = node.$ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, part) => (at as Record<string, unknown>)[part], this.document);
    return [target as HeaderObject, node.$ref];
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`openapi.json${pointer}`);
      if (!validate) throw new Error(`No schema at ${pointer} of the OpenAPI document`);
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

/** The error a test fails with when an answer is outside the contract. */
export class ContractViolation extends Error {
  constructor(violations: string[]) {
    super(`Outside the OpenAPI contract:\n  - ${violations.join('\n  - ')}`);
    this.name = 'ContractViolation';
  }
}

type Load = () => Promise<OpenApiContract>;

/** The contracts of the apps running in this jest worker, by origin (`http://127.0.0.1:port`). */
const running = new Map<string, Load>();

/** Checks `exchange` against `load`'s contract: resolves when it conforms, rejects with the violations. */
async function check(load: Load, exchange: Exchange): Promise<void> {
  const violations = (await load()).violations(exchange);
  if (violations.length) throw new ContractViolation(violations);
}

/**
 * A supertest client of `server` whose every answer is checked against the
 * document `server` serves (loaded on first use): a test awaiting a request
 * fails with the violations, beside any failed `.expect()` of its own.
 * Registers the contract for `origin`, for clients that speak plain HTTP.
 */
export function checkedAgent(server: Server, origin: string): TestAgent {
  let contract: Promise<OpenApiContract> | undefined;
  const load: Load = () => (contract ??= OpenApiContract.of(server));
  running.set(origin, load);
  server.once('close', () => running.delete(origin));
  const agent = request(server);
  const checked = {} as Record<string, unknown>;
  for (const [verb, start] of Object.entries(agent) as [string, (url: string) => request.Test][]) {
    checked[verb] = (url: string) => watch(start(url), load);
  }
  return checked as unknown as TestAgent;
}

function watch(test: request.Test, load: Load): request.Test {
  const end = test.end.bind(test);
  test.end = (callback) =>
    end((error, res) => {
      if (!res) return callback?.(error, res);
      const exchange = {
        method: test.method,
        url: test.url,
        status: res.status,
        headers: res.headers as Exchange['headers'],
        text: typeof res.text === 'string' ? res.text : undefined,
      };
      check(load, exchange).then(
        () => callback?.(error, res),
        (violation: Error) => {
          if (error) error.message += `\n\n${violation.message}`;
          callback?.(error ?? violation, res);
        },
      );
    });
  return test;
}

/**
 * Checks an exchange another client (node:http, fetch) had with an app
 * started in this worker; answers from anything else pass unchecked.
 */
export async function checkExchange(exchange: Exchange): Promise<void> {
  const load = running.get(new URL(exchange.url).origin);
  if (load) await check(load, exchange);
}

/** A fetch (as openapi-fetch calls it) whose answers from an app started in this worker are checked. */
export const checkedFetch = async (input: Request): Promise<Response> => {
  const response = await fetch(input);
  const text = await response.clone().text();
  await checkExchange({
    method: input.method,
    url: input.url,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text,
  });
  return response;
};
