import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';

/**
 * A real local AI provider for tests: it speaks the OpenAI chat-completions
 * wire format (`/v1/chat/completions`, and Azure's
 * `/openai/deployments/{deployment}/chat/completions?api-version=…`) and
 * Anthropic's (`/v1/messages`), with deterministic answers and token usage.
 * Tests script answers, inject 429/500/slow answers, and read every request.
 */
export type ProviderWireFormat = 'openai' | 'azure' | 'anthropic';

export interface ProviderRequest {
  format: ProviderWireFormat;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    system?: string;
    max_tokens?: number;
    temperature?: number;
    [key: string]: unknown;
  };
  raw: string;
  /** The Azure deployment named in the path. */
  deployment?: string;
  /** Every message's text (system included), joined: what the model was shown. */
  text: string;
}

export interface ScriptedAnswer {
  /** The model's text; by default a canned answer (see defaultAnswer). */
  content?: string;
  usage?: { input_tokens: number; output_tokens: number };
  /** An error status (429, 500, …) answered with the provider's error body. */
  status?: number;
  error?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (for time-outs and slow answers). */
  delayMs?: number;
}

export type Responder = (request: ProviderRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface AiProviderServer {
  /** `http://127.0.0.1:<port>`: the base URL for anthropic and azure_openai. */
  url: string;
  /** `<url>/v1`: the base URL for openai and openai_compatible. */
  openaiBaseUrl: string;
  /** The host to put in TRUSTED_AI_HOSTS. */
  host: string;
  requests: ProviderRequest[];
  /** Milliseconds each request spent in this server (arrival of the full body to the end of the answer). */
  handledMs: number[];
  /** The answer to give when the queue is empty. */
  respondWith(responder: Responder): void;
  /** Answers used first, one per request, in order. */
  enqueue(...answers: ScriptedAnswer[]): void;
  /** Back to the default answers, with no recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export const CANNED_TEXT = 'OK';
export const CANNED_JSON = JSON.stringify({
  hypotheses: [{ cause: 'Deterministic test cause', confidence: 0.5, evidence: ['local test provider'] }],
});

/** JSON when the prompt asks for JSON, else "OK"; usage is about four characters a token. */
export const defaultAnswer: Responder = (request) => ({
  content: /json/i.test(request.text) ? CANNED_JSON : CANNED_TEXT,
});

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function formatOf(path: string): { format: ProviderWireFormat; deployment?: string } | null {
  const pathname = path.split('?')[0];
  if (pathname === '/v1/chat/completions' || pathname === '/chat/completions') return { format: 'openai' };
  if (pathname === '/v1/messages') return { format: 'anthropic' };
  const azure = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(pathname);
  return azure ? { format: 'azure', deployment: decodeURIComponent(azure[1]) } : null;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export async function startAiProviderServer(): Promise<AiProviderServer> {
  const requests: ProviderRequest[] = [];
  const handledMs: number[] = [];
  let queue: ScriptedAnswer[] = [];
  let responder: Responder = defaultAnswer;
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const started = performance.now();
      void (async () => {
        const path = req.url ?? '/';
        const kind = formatOf(path);
        if (req.method !== 'POST' || !kind) {
          send(res, 404, { error: { message: `No route for ${req.method} ${path}` } });
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: ProviderRequest['body'];
        try {
          body = JSON.parse(raw) as ProviderRequest['body'];
        } catch {
          send(res, 400, { error: { message: 'The body is not JSON.' } });
          return;
        }
        const text = [body.system ?? '', ...(body.messages ?? []).map((m) => m.content)].join('\n');
        const request: ProviderRequest = { ...kind, path, headers: req.headers, body, raw, text };
        requests.push(request);
        const answer = queue.length ? queue.shift()! : await responder(request);
        const reply = () => {
          handledMs.push(performance.now() - started);
          if (answer.status && answer.status >= 400) {
            const message = answer.error ?? `Scripted failure ${answer.status}`;
            const errorBody =
              kind.format === 'anthropic'
                ? { type: 'error', error: { type: 'api_error', message } }
                : { error: { message, type: 'api_error', code: String(answer.status) } };
            send(res, answer.status, errorBody, answer.headers);
            return;
          }
          const content = answer.content ?? CANNED_TEXT;
          const usage = answer.usage ?? { input_tokens: tokens(text), output_tokens: tokens(content) };
          const model = body.model ?? kind.deployment ?? 'test-model';
          const payload =
            kind.format === 'anthropic'
              ? {
                  id: `msg_test_${requests.length}`,
                  type: 'message',
                  role: 'assistant',
                  model,
                  content: [{ type: 'text', text: content }],
                  stop_reason: 'end_turn',
                  usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
                }
              : {
                  id: `chatcmpl-test-${requests.length}`,
                  object: 'chat.completion',
                  created: 1_700_000_000,
                  model,
                  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
                  usage: {
                    prompt_tokens: usage.input_tokens,
                    completion_tokens: usage.output_tokens,
                    total_tokens: usage.input_tokens + usage.output_tokens,
                  },
                };
          send(res, answer.status ?? 200, payload, answer.headers);
        };
        if (answer.delayMs) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            reply();
          }, answer.delayMs);
          timers.add(timer);
        } else reply();
      })();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    host: '127.0.0.1',
    requests,
    handledMs,
    respondWith(next) {
      responder = next;
    },
    enqueue(...answers) {
      queue.push(...answers);
    },
    reset() {
      requests.length = 0;
      handledMs.length = 0;
      queue = [];
      responder = defaultAnswer;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
