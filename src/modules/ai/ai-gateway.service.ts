import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../common/errors/domain-error';
import { AiConfigService } from './ai-config.service';
import {
  AiBudgetExceeded,
  AiInputBlocked,
  AiNotConfigured,
  AiProviderFailed,
  AiProviderTimeout,
} from './ai.errors';
import { AiLogStore } from './ai-log.store';
import { estimateTokens } from './budget-rules';
import { BudgetSnapshot, BudgetsService } from './budgets.service';
import type { StoredMessage } from './entities/ai-log.entity';
import { checkUntrusted, GuardrailKind, redact, redactionActions } from './guardrails';
import { ModelRoutingService } from './model-routing.service';
import { costOf } from './pricing';
import { PromptsService } from './prompts.service';
import { budgetSentence, parseJson, PreparedCall, prefetch, span, SpanRecord, timed } from './gateway-steps';
import { ProviderClient, ProviderFailure } from './providers/provider.client';
import type { ProviderTarget } from './providers/wire';
import { AiQueries } from './ai.queries';

export interface AiCallRequest {
  /** snake_case feature name; picks the model route and the budget entry point. */
  feature: string;
  promptKey: string;
  variables: Record<string, unknown>;
  userId: string | null;
  spaceId?: string | null;
  /** Groups this call with others of one feature invocation (see startRun); a run of its own otherwise. */
  runId?: string;
  /** Variables holding user- or data-supplied text, checked for prompt-injection markers. */
  untrustedVariables?: string[];
  /** `json` parses the answer (code fences tolerated); the prompt's own format when left out. */
  responseFormat?: 'text' | 'json';
}

export interface AiCallResult {
  logId: string;
  text: string;
  json?: unknown;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  runId?: string;
}

/** A call to an external tool (over MCP) made by an AI feature, as the AI log records it. */
export interface ToolCallLog {
  feature: string;
  /** The workflow run: the caller's (startRun / withRun), or with `ownRun` one this call opens and finishes. */
  runId: string;
  /** The run is this call's alone: written with the log, finished with its status (one statement, no startRun). */
  ownRun?: boolean;
  userId: string | null;
  spaceId: string | null;
  /** The tool as `{slug}.{tool_name}`: the log's `model`, with `provider` `mcp`. */
  tool: string;
  status: 'success' | 'error';
  startedAt: Date;
  latencyMs: number;
  /** What the tool was asked; stored as the user message, redacted like every logged prompt. */
  input: string;
  /** A short account of the answer (never the raw tool output). */
  output: string | null;
  error: string | null;
  /** Facts for the call's span (result counts, reuse, ...). */
  detail: Record<string, unknown>;
}

/**
 * The one way into an AI provider: route, prompt, budget, guardrails,
 * provider, log. Each step is timed as a span of the call's workflow run.
 */
@Injectable()
export class AiGatewayService {
  constructor(
    private readonly routing: ModelRoutingService,
    private readonly prompts: PromptsService,
    private readonly budgets: BudgetsService,
    private readonly providers: ProviderClient,
    private readonly store: AiLogStore,
    private readonly configs: AiConfigService,
    private readonly queries: AiQueries,
  ) {}

  async complete(request: AiCallRequest): Promise<AiCallResult> {
    const spans: SpanRecord[] = [];
    const started = performance.now();
    // The reads of the route, prompt and budget steps go out together (one round trip of
    // latency); each step then waits for its own answer, in order.
    const routeRead = prefetch(this.routing.resolve(request.feature));
    const promptRead = prefetch(this.prompts.active(request.promptKey));
    const budgetRead = prefetch(this.budgets.snapshot(request.feature));
    const targets = await this.routeStep(spans, request.feature, routeRead);
    const { prompt, messages } = await timed(
      spans,
      'prompt',
      async () => {
        const active = await promptRead;
        return { prompt: active, messages: this.prompts.messages(active, request.variables) };
      },
      (p) => ({ prompt_key: p.prompt.key, version: p.prompt.version }),
    );
    return this.execute(
      {
        feature: request.feature,
        promptKey: prompt.key,
        promptVersion: prompt.version,
        messages,
        responseFormat: request.responseFormat ?? prompt.responseFormat,
        userId: request.userId,
        spaceId: request.spaceId ?? null,
        runId: request.runId,
        injection: checkUntrusted(request.variables, request.untrustedVariables ?? []),
        replayOf: null,
      },
      targets,
      spans,
      started,
      budgetRead,
    );
  }

  /** Opens a workflow run that groups the gateway calls of one feature invocation. */
  async startRun(feature: string, userId: string | null, spaceId: string | null = null): Promise<string> {
    const id = randomUUID();
    await this.queries.startRun(id, feature, userId, spaceId);
    return id;
  }

  async finishRun(runId: string, status: 'succeeded' | 'failed'): Promise<void> {
    await this.queries.finishRun(runId, status);
  }

  /** Runs `work` inside a workflow run, finished as succeeded or failed by its outcome. */
  async withRun<T>(
    feature: string,
    userId: string | null,
    spaceId: string | null,
    work: (runId: string) => Promise<T>,
  ): Promise<T> {
    const runId = await this.startRun(feature, userId, spaceId);
    try {
      const result = await work(runId);
      await this.finishRun(runId, 'succeeded');
      return result;
    } catch (error) {
      await this.finishRun(runId, 'failed');
      throw error;
    }
  }

  /** Records a tool call in the AI log under the caller's run, with one `provider` span for the call itself. */
  async recordToolCall(call: ToolCallLog): Promise<string> {
    const id = randomUUID();
    await this.store.write(
      {
        id,
        feature: call.feature,
        provider: 'mcp',
        model: call.tool,
        promptKey: null,
        promptVersion: null,
        status: call.status,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        latencyMs: Math.round(call.latencyMs),
        userId: call.userId,
        spaceId: call.spaceId,
        guardrailActions: [],
        messages: [{ role: 'user', content: redact(call.input).text }],
        response: call.output,
        error: call.error,
        runId: call.runId,
        attempt: 1,
        profileId: null,
        replayOf: null,
      },
      [
        span(
          'provider',
          call.status === 'success' ? 'ok' : 'error',
          call.startedAt,
          call.latencyMs,
          call.detail,
        ),
      ],
      // An own run takes the call's status and is finished; a caller's run is created if missing
      // and its status left to finishRun.
      {
        own: call.ownRun === true,
        id: call.runId,
        feature: call.feature,
        status: call.ownRun ? (call.status === 'success' ? 'succeeded' : 'failed') : 'running',
        userId: call.userId,
        spaceId: call.spaceId,
        startedAt: call.startedAt,
        finished: call.ownRun === true,
      },
    );
    return id;
  }

  /** Sends a logged call's stored (already redacted) messages again through the governed path. */
  async replay(
    original: {
      id: string;
      feature: string;
      promptKey: string | null;
      promptVersion: number | null;
      messages: StoredMessage[];
      spaceId: string | null;
    },
    userId: string,
  ): Promise<AiCallResult> {
    const spans: SpanRecord[] = [];
    const started = performance.now();
    const budgetRead = prefetch(this.budgets.snapshot(original.feature));
    const targets = await this.routeStep(spans, original.feature, this.routing.resolve(original.feature));
    return this.execute(
      {
        feature: original.feature,
        promptKey: original.promptKey,
        promptVersion: original.promptVersion,
        messages: original.messages,
        responseFormat: 'text',
        userId,
        spaceId: original.spaceId,
        // The variables are gone; the stored user messages stand in for them.
        injection: checkUntrusted(
          {
            replayed_prompt: original.messages
              .filter((m) => m.role === 'user')
              .map((m) => m.content)
              .join('\n'),
          },
          ['replayed_prompt'],
        ),
        replayOf: original.id,
      },
      targets,
      spans,
      started,
      budgetRead,
    );
  }

  /** The smallest call to the provider configuration itself (not a route), enabled or not. */
  async testConnection(
    userId: string,
  ): Promise<{ success: boolean; error: string | null; latency_ms: number; model: string | null }> {
    const started = performance.now();
    const config = await this.configs.effective();
    if (!config) return { success: false, error: new AiNotConfigured().detail, latency_ms: 0, model: null };
    const target = this.routing.configTarget(config);
    try {
      const prompt = await this.prompts.active('connection_test');
      await this.execute(
        {
          feature: 'test_connection',
          promptKey: prompt.key,
          promptVersion: prompt.version,
          messages: this.prompts.messages(prompt, {}),
          responseFormat: 'text',
          userId,
          spaceId: null,
          injection: { actions: [], blocked: false },
          replayOf: null,
        },
        [target],
        [],
        started,
        this.budgets.snapshot('test_connection'),
      );
      return {
        success: true,
        error: null,
        latency_ms: Math.round(performance.now() - started),
        model: target.model,
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return {
        success: false,
        error: error.detail,
        latency_ms: Math.round(performance.now() - started),
        model: target.model,
      };
    }
  }

  /** The route step: the feature's targets (profile, then its fallback), recorded as a span. */
  private routeStep(
    spans: SpanRecord[],
    feature: string,
    read: Promise<ProviderTarget[]>,
  ): Promise<ProviderTarget[]> {
    return timed(
      spans,
      'route',
      () => read,
      (t) => ({
        feature,
        profile_id: t[0].profileId,
        provider: t[0].provider,
        model: t[0].model,
        fallback: t[1] ? { profile_id: t[1].profileId, model: t[1].model } : null,
      }),
    );
  }

  private async execute(
    call: PreparedCall,
    targets: ProviderTarget[],
    spans: SpanRecord[],
    started: number,
    budgetRead: Promise<BudgetSnapshot>,
  ): Promise<AiCallResult> {
    const runId = call.runId ?? randomUUID();
    const run = {
      own: call.runId === undefined,
      runId,
      startedAt: new Date(Date.now() - (performance.now() - started)),
    };
    const estimate = call.messages.reduce((n, m) => n + estimateTokens(m.content), 0);
    const breach = await timed(
      spans,
      'budget',
      async () => this.budgets.evaluate(await budgetRead, estimate),
      (b) => ({
        estimated_tokens: estimate,
        refused: b
          ? { entry_point_id: b.entryPoint, limit: b.limit, used: b.used, allowed: b.allowed }
          : null,
      }),
      (b) => (b ? 'refused' : 'ok'),
    );
    const { messages, actions } = await timed(
      spans,
      'guardrails',
      async () => {
        const counts: Partial<Record<GuardrailKind, number>> = {};
        const redacted = call.messages.map((m) => {
          const r = redact(m.content);
          for (const [kind, n] of Object.entries(r.counts) as [GuardrailKind, number][])
            counts[kind] = (counts[kind] ?? 0) + n;
          return { role: m.role, content: r.text };
        });
        return { messages: redacted, actions: [...call.injection.actions, ...redactionActions(counts)] };
      },
      (g) => ({ actions: g.actions }),
      () => (call.injection.blocked ? 'blocked' : 'ok'),
    );
    const base = { call, messages, actions, run, started };
    if (call.injection.blocked) {
      const logId = await this.store.recordAttempt(base, targets[0], 1, 'blocked', spans, {
        error: 'Prompt-injection markers in untrusted input.',
      });
      const variables = actions.filter((a) => a.kind === 'injection_blocked').map((a) => a.variable ?? '');
      throw new AiInputBlocked(variables, logId);
    }
    if (breach) {
      const logId = await this.store.recordAttempt(base, targets[0], 1, 'budget_exceeded', spans, {
        error: budgetSentence(breach),
      });
      throw new AiBudgetExceeded(breach.entryPoint, breach.limit, breach.resetsAt, logId);
    }
    for (let i = 0; ; i++) {
      const target = targets[i];
      const attemptSpans = i === 0 ? spans : [];
      const providerStart = performance.now();
      const providerStartedAt = new Date();
      try {
        const answer = await this.providers.call(target, messages);
        const json = call.responseFormat === 'json' ? parseJson(answer) : undefined;
        attemptSpans.push(
          span('provider', 'ok', providerStartedAt, performance.now() - providerStart, {
            provider: target.provider,
            model: target.model,
            retries: answer.retries,
            input_tokens: answer.inputTokens,
            output_tokens: answer.outputTokens,
          }),
        );
        const cost = costOf(target.model, answer.inputTokens, answer.outputTokens);
        const logId = await this.store.recordAttempt(base, target, i + 1, 'success', attemptSpans, {
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
          costUsd: cost.usd,
          response: redact(answer.text).text,
          final: true,
        });
        return {
          logId,
          text: answer.text,
          ...(json !== undefined ? { json } : {}),
          provider: target.provider,
          model: target.model,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
          costUsd: cost.usd,
          runId,
        };
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
        const last = i === targets.length - 1;
        attemptSpans.push(
          span('provider', error.kind, providerStartedAt, performance.now() - providerStart, {
            provider: target.provider,
            model: target.model,
            retries: error.retries,
            http_status: error.httpStatus,
            error: error.message,
            fallback_next: !last,
          }),
        );
        const spent = error.answered;
        const logId = await this.store.recordAttempt(base, target, i + 1, 'error', attemptSpans, {
          error: error.message,
          final: last,
          // An answer we could not use still cost its tokens: they count in the log, usage and budgets.
          ...(spent && {
            inputTokens: spent.inputTokens,
            outputTokens: spent.outputTokens,
            costUsd: costOf(target.model, spent.inputTokens, spent.outputTokens).usd,
            response: redact(spent.text).text,
          }),
        });
        if (!last) continue;
        if (error.kind === 'timeout') throw new AiProviderTimeout(error.message, logId);
        if (error.kind === 'not_configured' || error.kind === 'refused')
          throw new AiNotConfigured(error.message);
        throw new AiProviderFailed(error.message, logId);
      }
    }
  }
}
