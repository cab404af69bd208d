import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AiLogStatus, StoredMessage } from './entities/ai-log.entity';
import type { AiRunStatus } from './entities/ai-workflow-run.entity';
import type { GuardrailAction } from './guardrails';
import { AttemptBase, span, SpanRecord } from './gateway-steps';
import type { ProviderTarget } from './providers/wire';
import { AiQueries } from './ai.queries';

export interface LogRecord {
  id: string;
  feature: string;
  provider: string;
  model: string;
  promptKey: string | null;
  promptVersion: number | null;
  status: AiLogStatus;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
  userId: string | null;
  spaceId: string | null;
  guardrailActions: GuardrailAction[];
  messages: StoredMessage[];
  response: string | null;
  error: string | null;
  runId: string;
  attempt: number;
  profileId: string | null;
  replayOf: string | null;
}

/**
 * The run the log belongs to. A run the gateway opened for this one call
 * (`own`) takes the call's status; a caller's run (startRun) is only created
 * if missing and keeps its status until finishRun.
 */
export interface RunRecord {
  own: boolean;
  id: string;
  feature: string;
  status: AiRunStatus;
  userId: string | null;
  spaceId: string | null;
  startedAt: Date;
  finished: boolean;
}

@Injectable()
export class AiLogStore {
  private readonly logger = new Logger('AiLogStore');

  constructor(private readonly queries: AiQueries) {}

  async write(log: LogRecord, spans: SpanRecord[], run: RunRecord): Promise<Date> {
    // One statement: the log, both daily rollups, the spans and the run (see AiQueries' WRITE_LOG_SQL).
    return this.queries.writeLog([
      log.id,
      log.feature,
      log.provider,
      log.model,
      log.promptKey,
      log.promptVersion,
      log.status,
      log.inputTokens,
      log.outputTokens,
      log.costUsd,
      log.latencyMs,
      log.userId,
      log.spaceId,
      JSON.stringify(log.guardrailActions),
      JSON.stringify(log.messages),
      log.response,
      log.error,
      log.attempt,
      log.profileId,
      log.runId,
      log.replayOf,
      run.own,
      run.status,
      run.startedAt,
      run.finished,
      JSON.stringify(
        spans.map((s) => ({
          name: s.name,
          status: s.status,
          started_at: s.startedAt.toISOString(),
          duration_ms: s.durationMs,
          detail: s.detail,
        })),
      ),
    ]);
  }

  /** The span of the log write itself, which can only be measured once the write is done. */
  async writeSpan(runId: string, logId: string, attempt: number, span: SpanRecord): Promise<void> {
    await this.queries.writeSpan([
      runId,
      logId,
      attempt,
      span.name,
      span.status,
      span.startedAt,
      span.durationMs,
      JSON.stringify(span.detail),
    ]);
  }

  /** Writes one attempt of a call: its log entry, the rollups, its spans and its run. */
  async recordAttempt(
    base: AttemptBase,
    target: ProviderTarget,
    attempt: number,
    status: AiLogStatus,
    spans: SpanRecord[],
    outcome: {
      inputTokens?: number;
      outputTokens?: number;
      costUsd?: number;
      response?: string;
      error?: string;
      final?: boolean;
    },
  ): Promise<string> {
    const { call, run } = base;
    const record: LogRecord = {
      id: randomUUID(),
      feature: call.feature,
      provider: target.provider,
      model: target.model,
      promptKey: call.promptKey,
      promptVersion: call.promptVersion,
      status,
      inputTokens: outcome.inputTokens ?? 0,
      outputTokens: outcome.outputTokens ?? 0,
      costUsd: outcome.costUsd ?? 0,
      latencyMs: Math.round(performance.now() - base.started),
      userId: call.userId,
      spaceId: call.spaceId,
      guardrailActions: base.actions,
      messages: base.messages,
      response: outcome.response ?? null,
      error: outcome.error ?? null,
      runId: run.runId,
      attempt,
      profileId: target.profileId,
      replayOf: call.replayOf,
    };
    const finished = status !== 'error' || outcome.final === true;
    const writeStart = performance.now();
    const writeStartedAt = new Date();
    await this.write(record, spans, {
      own: run.own,
      id: run.runId,
      feature: call.feature,
      status: status === 'success' ? 'succeeded' : finished ? 'failed' : 'running',
      userId: call.userId,
      spaceId: call.spaceId,
      startedAt: run.startedAt,
      finished,
    });
    // The write's own span is known only now; the caller does not wait for it to be stored.
    void this.writeSpan(
      run.runId,
      record.id,
      attempt,
      span('log', 'ok', writeStartedAt, performance.now() - writeStart, { status }),
    ).catch((error: unknown) =>
      this.logger.warn(`Could not record the log span of ${record.id}: ${String(error)}`),
    );
    return record.id;
  }
}
