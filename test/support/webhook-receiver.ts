import { createServer, IncomingHttpHeaders, Server } from 'node:http';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Status codes to answer, in order; the last one repeats. Optional `Location` for redirects. */
  respondWith(...answers: Array<number | { status: number; location: string }>): void;
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP server on a loopback port that records every request it receives. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  let answers: Array<number | { status: number; location: string }> = [200];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (typeof answer === 'number') {
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answered ${answer}`);
      } else {
        res.writeHead(answer.status, { location: answer.location }).end();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    respondWith: (...next) => {
      answers = next;
    },
    async waitForCount(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline)
          throw new Error(`Got ${requests.length} of ${count} webhook requests in time.`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return requests;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
