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
 */
export function recordStatements(): { statements: LoggedStatement[]; stop(): void } {
  const statements: LoggedStatement[] = [];
  const ids = new WeakMap<object, number>();
  let next = 0;
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    if (!ids.has(this)) ids.set(this, ++next);
    statements.push({ connection: ids.get(this) as number, text: text.replace(/\s+/g, ' ').trim() });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof Client.prototype.query;
  return {
    statements,
    stop: () => {
      Client.prototype.query = original;
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
