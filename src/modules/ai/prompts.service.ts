import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import {
  CreatePromptVersionDto,
  PreviewPromptDto,
  PromptDetailResponse,
  PromptPreviewResponse,
  PromptSummaryResponse,
  PromptVersionResponse,
  CreatedPromptVersionResponse,
} from './dto/prompts.dto';
import type { StoredMessage } from './entities/ai-log.entity';
import { AiPromptVersion, PromptVersionStatus } from './entities/ai-prompt-version.entity';
import { redact, redactionActions } from './guardrails';
import { promptDefault, PROMPT_DEFAULTS, PromptDefinition } from './prompts/prompt-defaults';
import { missingVariables, render, templateVariables } from './prompts/prompt-template';
import { AiQueries } from './ai.queries';
import { AiConfigCache } from './ai-config.cache';

/** The prompt a call uses: the active stored version, or the code default (version 0). */
export interface ActivePrompt {
  key: string;
  version: number;
  system: string;
  template: string;
  variables: string[];
  responseFormat: 'text' | 'json';
}

@Injectable()
export class PromptsService {
  constructor(
    @InjectRepository(AiPromptVersion) private readonly versions: Repository<AiPromptVersion>,
    private readonly queries: AiQueries,
    private readonly cache: AiConfigCache,
  ) {}

  definition(key: string): PromptDefinition {
    const definition = promptDefault(key);
    if (!definition) throw new NotFound('prompt', key);
    return definition;
  }

  async active(key: string): Promise<ActivePrompt> {
    const definition = this.definition(key);
    // From memory (AiConfigCache).
    const row = (await this.cache.view()).own.prompts.get(key);
    const source = row ?? { version: 0, ...definition };
    return {
      key,
      version: source.version,
      system: source.system,
      template: source.template,
      variables: source.variables,
      responseFormat: definition.responseFormat,
    };
  }

  /** The system and user messages; 422 naming the first variable the call left out. */
  messages(
    prompt: Omit<ActivePrompt, 'responseFormat'>,
    variables: Record<string, unknown>,
  ): StoredMessage[] {
    const missing = missingVariables(prompt.variables, variables);
    if (missing.length) {
      throw new ValidationFailed(
        missing.map((name) => ({
          field: `variables.${name}`,
          message: `The prompt ${prompt.key} needs the variable ${name}.`,
        })),
        `The prompt ${prompt.key} needs the variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`,
      );
    }
    return [
      { role: 'system', content: render(prompt.system, variables) },
      { role: 'user', content: render(prompt.template, variables) },
    ];
  }

  async list(page: PageQuery): Promise<Page<PromptSummaryResponse>> {
    // The prompts are defined in code, so the page is cut before the database is asked.
    const definitions = Object.values(PROMPT_DEFAULTS).sort((a, b) => a.key.localeCompare(b.key));
    const skip = page.skip ?? 0;
    const shown = definitions.slice(skip, skip + (page.limit ?? 50));
    const counts = shown.length
      ? await this.versions
          .createQueryBuilder('v')
          .select('v.promptKey', 'key')
          .addSelect('count(*)::int', 'count')
          .addSelect(`max(v.version) FILTER (WHERE v.status = 'active')`, 'active')
          .where('v.promptKey IN (:...keys)', { keys: shown.map((d) => d.key) })
          .groupBy('v.promptKey')
          .getRawMany<{ key: string; count: number; active: number | null }>()
      : [];
    const byKey = new Map(counts.map((c) => [c.key, c]));
    return {
      items: shown.map((d) => summary(d, byKey.get(d.key)?.active ?? 0, byKey.get(d.key)?.count ?? 0)),
      total: definitions.length,
    };
  }

  async get(key: string): Promise<PromptDetailResponse> {
    const definition = this.definition(key);
    const rows = await this.versions.find({ where: { promptKey: key }, order: { version: 'DESC' } });
    const active = rows.find((r) => r.status === 'active');
    return {
      ...summary(definition, active?.version ?? 0, rows.length),
      versions: [
        ...rows.map(toVersion),
        {
          version: 0,
          status: active ? 'inactive' : 'active',
          system: definition.system,
          template: definition.template,
          variables: definition.variables,
          note: 'Code default',
          source_log_id: null,
          created_by: null,
          created_at: null,
        },
      ],
    };
  }

  /** Stores a new version and makes it the active one. */
  async createVersion(
    userId: string,
    key: string,
    dto: CreatePromptVersionDto,
  ): Promise<CreatedPromptVersionResponse> {
    const definition = this.definition(key);
    const system = dto.system ?? definition.system;
    const used = [...new Set([...templateVariables(dto.template), ...templateVariables(system)])];
    const unknown = used.filter((name) => !definition.variables.includes(name));
    if (unknown.length) {
      throw ValidationFailed.field(
        'template',
        `The prompt ${key} has no variable ${unknown.join(', ')}; it can use ${definition.variables.join(', ') || 'none'}.`,
      );
    }
    const version = await this.cache.write((em) =>
      this.insertVersion(em, {
        key,
        system,
        template: dto.template,
        variables: used,
        status: 'active',
        note: dto.note ?? null,
        userId,
        logId: null,
      }),
    );
    const row = await this.versions.findOneByOrFail({ promptKey: key, version });
    return { prompt_key: key, ...toVersion(row) };
  }

  /** A draft (not active) version from a logged call's messages. */
  async saveDraft(
    userId: string,
    key: string,
    messages: StoredMessage[],
    logId: string,
  ): Promise<PromptDetailResponse> {
    const definition = this.definition(key);
    const system = messages.find((m) => m.role === 'system')?.content ?? definition.system;
    const template = messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n\n');
    await this.cache.write((em) =>
      this.insertVersion(em, {
        key,
        system,
        template,
        variables: [],
        status: 'draft',
        note: `Saved from AI log ${logId}`,
        userId,
        logId,
      }),
    );
    return this.get(key);
  }

  async preview(key: string, dto: PreviewPromptDto): Promise<PromptPreviewResponse> {
    let prompt: Omit<ActivePrompt, 'responseFormat'>;
    if (dto.version === undefined) prompt = await this.active(key);
    else if (dto.version === 0) prompt = { ...this.definition(key), version: 0 };
    else {
      this.definition(key);
      const row = await this.versions.findOneBy({ promptKey: key, version: dto.version });
      if (!row) throw new NotFound(`version ${dto.version} of prompt ${key}`);
      prompt = {
        key,
        version: row.version,
        system: row.system,
        template: row.template,
        variables: row.variables,
      };
    }
    const messages = this.messages(prompt, dto.variables);
    const counts: Record<string, number> = {};
    const redacted = messages.map((m) => {
      const r = redact(m.content);
      for (const [kind, n] of Object.entries(r.counts)) counts[kind] = (counts[kind] ?? 0) + (n ?? 0);
      return { role: m.role, content: r.text };
    });
    return {
      prompt_key: key,
      version: prompt.version,
      messages,
      redacted_messages: redacted,
      guardrail_actions: redactionActions(counts).map((a) => ({ ...a })),
    };
  }

  /** Back to the code default: stored versions stay, none is active. */
  async reset(key: string): Promise<PromptDetailResponse> {
    this.definition(key);
    await this.cache.write((em) =>
      em.update(AiPromptVersion, { promptKey: key, status: 'active' }, { status: 'inactive' }),
    );
    return this.get(key);
  }

  private async insertVersion(
    em: EntityManager,
    v: {
      key: string;
      system: string;
      template: string;
      variables: string[];
      status: PromptVersionStatus;
      note: string | null;
      userId: string;
      logId: string | null;
    },
  ): Promise<number> {
    // Serialises version numbering per key without a row to lock.
    const next = await this.queries.nextPromptVersion(em, v.key);
    if (v.status === 'active') {
      await em.update(AiPromptVersion, { promptKey: v.key, status: 'active' }, { status: 'inactive' });
    }
    await em.insert(AiPromptVersion, {
      promptKey: v.key,
      version: next,
      system: v.system,
      template: v.template,
      variables: v.variables,
      status: v.status,
      note: v.note,
      sourceLogId: v.logId,
      createdBy: v.userId,
    });
    return next as number;
  }
}

function summary(d: PromptDefinition, active: number, count: number): PromptSummaryResponse {
  return {
    prompt_key: d.key,
    description: d.description,
    response_format: d.responseFormat,
    variables: d.variables,
    active_version: active,
    version_count: count,
  };
}

function toVersion(row: AiPromptVersion): PromptVersionResponse {
  return {
    version: row.version,
    status: row.status,
    system: row.system,
    template: row.template,
    variables: row.variables,
    note: row.note,
    source_log_id: row.sourceLogId,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}
