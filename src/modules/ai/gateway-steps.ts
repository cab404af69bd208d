import type { BudgetRefusal } from './budgets.service';
import type { StoredMessage } from './entities/ai-log.entity';
import type { AiSpanName } from './entities/ai-span.entity';
import type { GuardrailAction } from './guardrails';
import { ProviderAnswer, ProviderFailure } from './providers/provider.client';

/** Helpers of the gateway's steps: spans, early reads, JSON answers. */

/** A call ready for the budget, guardrail, provider and log steps. */
export interface PreparedCall {
  feature: string;
  promptKey: string | null;
  promptVersion: number | null;
  messages: StoredMessage[];
  responseFormat: 'text' | 'json';
  userId: string | null;
  spaceId: string | null;
  runId?: string;
  injection: { actions: GuardrailAction[]; blocked: boolean };
  replayOf: string | null;
}

/** What every log entry of one call shares. */
export interface AttemptBase {
  call: PreparedCall;
  messages: StoredMessage[];
  actions: GuardrailAction[];
  run: { own: boolean; runId: string; startedAt: Date };
  started: number;
}

/** One step of a call, as the log store writes it (ai_spans). */
export interface SpanRecord {
  name: AiSpanName;
  status: string;
  startedAt: Date;
  durationMs: number;
  detail: Record<string, unknown>;
}

const JSON_FENCE = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i;

export function span(
  name: AiSpanName,
  status: string,
  startedAt: Date,
  durationMs: number,
  detail: Record<string, unknown>,
): SpanRecord {
  return { name, status, startedAt, durationMs: Math.round(durationMs * 1000) / 1000, detail };
}

/** Marks an early read as handled, so that a step failing before it is awaited leaves no unhandled rejection. */
export function prefetch<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** Runs one step and records it as a span, also when it throws. */
export async function timed<T>(
  spans: SpanRecord[],
  name: AiSpanName,
  work: () => Promise<T>,
  detail: (result: T) => Record<string, unknown>,
  status: (result: T) => string = () => 'ok',
): Promise<T> {
  const startedAt = new Date();
  const start = performance.now();
  try {
    const result = await work();
    spans.push(span(name, status(result), startedAt, performance.now() - start, detail(result)));
    return result;
  } catch (error) {
    spans.push(
      span(name, 'error', startedAt, performance.now() - start, {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    throw error;
  }
}

/** The answer as JSON; a model that wraps it in a code fence is tolerated. */
export function parseJson(answer: ProviderAnswer): unknown {
  const body = JSON_FENCE.exec(answer.text)?.[1] ?? answer.text;
  try {
    return JSON.parse(body);
  } catch {
    throw new ProviderFailure(
      'invalid_answer',
      'The model was asked for JSON and answered something else.',
      null,
      answer.retries,
      answer,
    );
  }
}

export function budgetSentence(breach: BudgetRefusal): string {
  return `Over the ${breach.limit} budget of ${breach.entryPoint}: ${breach.used} used of ${breach.allowed}.`;
}
