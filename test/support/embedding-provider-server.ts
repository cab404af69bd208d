import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { hashingEmbed } from '../../src/modules/embeddings/providers/hashing-embedder';

/**
 * A real local embeddings provider for tests, on each vendor's wire format:
 * OpenAI `POST /openai/v1/embeddings`, Azure OpenAI
 * `POST /openai/deployments/{deployment}/embeddings?api-version=…`, Cohere
 * `POST /cohere/v2/embed` and Voyage `POST /voyage/v1/embeddings`. Vectors
 * are deterministic (hashed from the text) and deliberately not unit length.
 * Tests script failures and delays, hold requests unanswered, and read every request.
 */
export type EmbeddingWireFormat = 'openai' | 'azure' | 'cohere' | 'voyage';

export interface EmbeddingRequest {
  format: EmbeddingWireFormat;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The texts to embed, whatever the format calls them. */
  texts: string[];
  deployment?: string;
}

export interface EmbeddingAnswer {
  status?: number;
  error?: string;
  /** Vectors of this size instead of the one asked for. */
  dimensions?: number;
  /** Answer after this many milliseconds, as a busy provider does. */
  delayMs?: number;
}

export interface EmbeddingProviderServer {
  url: string;
  /** Base URLs to configure per provider. */
  bases: Record<'openai' | 'azure_openai' | 'cohere' | 'voyage', string>;
  host: string;
  requests: EmbeddingRequest[];
  /** Answers used first, one per request, in order. */
  enqueue(...answers: EmbeddingAnswer[]): void;
  /** The answer when the queue is empty (default: success). */
  respondWith(answer: EmbeddingAnswer): void;
  /** Answer this many more requests, then hold every later one unanswered until `release`. */
  holdAfter(count: number): void;
  release(): void;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_DIMENSIONS = 32;

function route(path: string): { format: EmbeddingWireFormat; deployment?: string } | null {
  const pathname = path.split('?')[0];
  if (pathname === '/openai/v1/embeddings') return { format: 'openai' };
  if (pathname === '/cohere/v2/embed') return { format: 'cohere' };
  if (pathname === '/voyage/v1/embeddings') return { format: 'voyage' };
  const azure = /^\/openai\/deployments\/([^/]+)\/embeddings$/.exec(pathname);
  return azure ? { format: 'azure', deployment: decodeURIComponent(azure[1]) } : null;
}

function textsOf(format: EmbeddingWireFormat, body: Record<string, unknown>): string[] {
  const raw = format === 'cohere' ? body.texts : body.input;
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.map(String) : [];
}

function sizeOf(format: EmbeddingWireFormat, body: Record<string, unknown>): number {
  const asked = format === 'openai' || format === 'azure' ? body.dimensions : body.output_dimension;
  return typeof asked === 'number' ? asked : DEFAULT_DIMENSIONS;
}

function vectorFor(text: string, dimensions: number): number[] {
  // Three times a unit vector: the client must normalise.
  return hashingEmbed(text, dimensions).map((x) => x * 3);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function errorBody(format: EmbeddingWireFormat, status: number, message: string): unknown {
  if (format === 'cohere') return { message };
  if (format === 'voyage') return { detail: message };
  return { error: { message, type: 'invalid_request_error', code: String(status) } };
}

function successBody(format: EmbeddingWireFormat, request: EmbeddingRequest, vectors: number[][]): unknown {
  const tokens = request.texts.reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);
  const model = String(request.body.model ?? request.deployment ?? 'test-model');
  if (format === 'cohere') {
    return {
      id: `embed-${Date.now()}`,
      embeddings: { float: vectors },
      texts: request.texts,
      meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
      response_type: 'embeddings_by_type',
    };
  }
  // OpenAI-style answers carry `index`; given in reverse so the client must order by it.
  const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse();
  return format === 'voyage'
    ? { object: 'list', data, model, usage: { total_tokens: tokens } }
    : { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

export async function startEmbeddingProviderServer(): Promise<EmbeddingProviderServer> {
  const requests: EmbeddingRequest[] = [];
  let queue: EmbeddingAnswer[] = [];
  let fallback: EmbeddingAnswer = {};
  let answerBeforeHold = Number.POSITIVE_INFINITY;
  const held: Array<() => void> = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const kind = route(path);
      if (req.method !== 'POST' || !kind) {
        send(res, 404, { error: { message: `No route for ${req.method} ${path}` } });
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        send(res, 400, errorBody(kind.format, 400, 'The body is not JSON.'));
        return;
      }
      const request: EmbeddingRequest = {
        ...kind,
        path,
        headers: req.headers,
        body,
        texts: textsOf(kind.format, body),
      };
      requests.push(request);
      const answer = queue.length ? queue.shift()! : fallback;
      const reply = () => {
        if (answer.status && answer.status >= 400) {
          send(
            res,
            answer.status,
            errorBody(kind.format, answer.status, answer.error ?? `Scripted failure ${answer.status}`),
          );
          return;
        }
        const size = answer.dimensions ?? sizeOf(kind.format, body);
        send(
          res,
          200,
          successBody(
            kind.format,
            request,
            request.texts.map((text) => vectorFor(text, size)),
          ),
        );
      };
      const answerNow = answer.delayMs ? () => setTimeout(reply, answer.delayMs) : reply;
      if (answerBeforeHold <= 0) held.push(answerNow);
      else {
        answerBeforeHold--;
        answerNow();
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    bases: {
      openai: `${url}/openai/v1`,
      azure_openai: url,
      cohere: `${url}/cohere`,
      voyage: `${url}/voyage`,
    },
    host: '127.0.0.1',
    requests,
    enqueue: (...answers) => void queue.push(...answers),
    respondWith: (answer) => void (fallback = answer),
    holdAfter: (count) => void (answerBeforeHold = count),
    release() {
      answerBeforeHold = Number.POSITIVE_INFINITY;
      for (const reply of held.splice(0)) reply();
    },
    reset() {
      requests.length = 0;
      queue = [];
      fallback = {};
      answerBeforeHold = Number.POSITIVE_INFINITY;
      held.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
