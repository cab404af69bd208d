import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server, ServerResponse } from 'node:http';
import { Client } from 'pg';

export interface LoggedStatement {
  /** Which pg connection sent it (numbered in order of first use while recording). */
  connection: number;
  text: string;
}

/**
 * Records every statement the process sends through `pg` (the app's pool and
 * any other client) until `stop`: how many round trips a request costs, and
 * which of them share a transaction (same connection, between BEGIN and COMMIT).
 * Given the app's HTTP server, only the statements sent on behalf of its
 * requests (followed through their async context), not those of background
 * loops (job runner, outbox dispatcher) that run meanwhile or that it wakes.
 */
export function recordStatements(requestsOf?: Server): { statements: LoggedStatement[]; stop(): void } {
  const statements: LoggedStatement[] = [];
  const ids = new WeakMap<object, number>();
  let next = 0;
  const inRequest = new AsyncLocalStorage<{ open: boolean }>();
  const handlers = requestsOf?.listeners('request') ?? [];
  if (requestsOf) {
    requestsOf.removeAllListeners('request');
    requestsOf.on('request', (...args: unknown[]) => {
      // Until the answer is sent: work the request merely wakes up (a dispatcher's pass) is not its own.
      const request = { open: true };
      (args[1] as ServerResponse).once('finish', () => (request.open = false));
      inRequest.run(request, () => handlers.forEach((handler) => handler.apply(requestsOf, args)));
    });
  }
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    if (!requestsOf || inRequest.getStore()?.open) {
      const config = args[0] as string | { text?: string };
      const text = typeof config === 'string' ? config : (config?.text ?? '');
      if (!ids.has(this)) ids.set(this, ++next);
      statements.push({ connection: ids.get(this) as number, text: text.replace(/\s+/g, ' ').trim() });
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof Client.prototype.query;
  return {
    statements,
    stop: () => {
      statements.splice(0, statements.length, ...withoutDispatcherPasses(statements));
      Client.prototype.query = original;
      if (requestsOf) {
        requestsOf.removeAllListeners('request');
        for (const handler of handlers) requestsOf.on('request', handler as (...args: unknown[]) => void);
      }
      inRequest.disable();
    },
  };
}

/** The statements of the transactions (BEGIN ... COMMIT/ROLLBACK on one connection) containing a match of `pattern`. */
export function transactionsWith(statements: LoggedStatement[], pattern: RegExp): string[][] {
  const open = new Map<number, string[]>();
  const found: string[][] = [];
  for (const { connection, text } of statements) {
    if (/^(START TRANSACTION|BEGIN)\b/i.test(text)) open.set(connection, []);
    const current = open.get(connection);
    if (!current) continue;
    current.push(text);
    if (/^(COMMIT|ROLLBACK)\b/i.test(text)) {
      open.delete(connection);
      if (current.some((s) => pattern.test(s))) found.push(current);
    }
  }
  return found;
}

/**
 * Leaves out the outbox dispatcher's passes (a transaction that starts by
 * claiming unpublished events) and transactions begun too late to be the
 * request's (nothing recorded after their BEGIN): a request's commit wakes
 * background work, which may inherit its async context without being its work.
 */
function withoutDispatcherPasses(statements: LoggedStatement[]): LoggedStatement[] {
  const skipping = new Set<number>();
  const kept: LoggedStatement[] = [];
  statements.forEach((statement, i) => {
    const { connection, text } = statement;
    if (/^START TRANSACTION/.test(text)) {
      const nextOnConnection = statements.slice(i + 1).find((s) => s.connection === connection);
      // A transaction with nothing after it began once the request had its answer.
      if (!nextOnConnection || /FROM outbox_events WHERE published_at IS NULL/.test(nextOnConnection.text)) {
        skipping.add(connection);
      }
    }
    if (skipping.has(connection)) {
      if (/^(COMMIT|ROLLBACK)\b/.test(text)) skipping.delete(connection);
      return;
    }
    kept.push(statement);
  });
  return kept;
}
