import { createServer, Server } from 'node:http';
import { ChatPayloadKind, chatPayloadErrors } from './chat-payloads';

export interface ChatAnswer {
  status: number;
  headers?: Record<string, string>;
}

export interface ReceivedChatMessage {
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
  /** What the payload validator of the receiver's platform found wrong (empty: the shape is valid). */
  errors: string[];
}

export interface ChatReceiver {
  /** A URL on loopback, accepted with ALLOW_PRIVATE_NETWORK_TARGETS. */
  url: string;
  received: ReceivedChatMessage[];
  /** Answers in order; the last one repeats. */
  respondWith(...answers: Array<number | ChatAnswer>): void;
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedChatMessage[]>;
  close(): Promise<void>;
}

/**
 * A local stand-in for a chat platform's incoming webhook: a real HTTP
 * server that records every message, checks its shape against the
 * platform's published schema (chat-payloads.ts) and, like the platforms,
 * answers 400 to a payload it cannot take.
 */
export async function startChatReceiver(kind: ChatPayloadKind): Promise<ChatReceiver> {
  const received: ReceivedChatMessage[] = [];
  let answers: ChatAnswer[] = [{ status: 200 }];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      let errors: string[];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        errors = chatPayloadErrors(kind, body);
      } catch {
        errors = ['the body is not JSON'];
      }
      received.push({ path: req.url ?? '/', contentType: req.headers['content-type'], body, errors });
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (errors.length) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(errors.join('\n'));
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook/T000/B000/secret-token-${kind}`,
    received,
    respondWith: (...next) => {
      answers = next.map((answer) => (typeof answer === 'number' ? { status: answer } : answer));
    },
    async waitForCount(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`Got ${received.length} of ${count} chat messages in time.`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
