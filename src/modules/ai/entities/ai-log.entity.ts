import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { GuardrailAction } from '../guardrails';

export const AI_LOG_STATUSES = ['success', 'error', 'blocked', 'budget_exceeded'] as const;
export type AiLogStatus = (typeof AI_LOG_STATUSES)[number];

export interface StoredMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One gateway call (one attempt): what was sent and answered, redacted, and what it cost. */
@Entity('ai_logs')
@Index('ai_logs_created_idx', ['createdAt', 'id'])
@Index('ai_logs_feature_created_idx', ['feature', 'createdAt'])
@Index('ai_logs_provider_created_idx', ['provider', 'createdAt'])
@Index('ai_logs_status_created_idx', ['status', 'createdAt'])
@Index('ai_logs_run_idx', ['runId'])
@Index('ai_logs_guarded_created_idx', ['createdAt'], { where: "guardrail_actions <> '[]'::jsonb" })
export class AiLog {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  feature: string;

  @Column('text')
  provider: string;

  @Column('text')
  model: string;

  @Column('text', { nullable: true })
  promptKey: string | null;

  @Column('integer', { nullable: true })
  promptVersion: number | null;

  @Column('text')
  status: AiLogStatus;

  @Column('integer', { default: 0 })
  inputTokens: number;

  @Column('integer', { default: 0 })
  outputTokens: number;

  @Column('numeric', {
    precision: 14,
    scale: 6,
    default: 0,
    transformer: { to: (v) => v, from: (v) => Number(v) },
  })
  costUsd: number;

  @Column('integer', { default: 0 })
  latencyMs: number;

  @Column('uuid', { nullable: true })
  userId: string | null;

  @Column('uuid', { nullable: true })
  spaceId: string | null;

  @Column('jsonb', { default: () => "'[]'" })
  guardrailActions: GuardrailAction[];

  /** The messages as sent (after redaction), or as they would have been sent. */
  @Column('jsonb', { default: () => "'[]'" })
  messages: StoredMessage[];

  @Column('text', { nullable: true })
  response: string | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('uuid', { nullable: true })
  runId: string | null;

  @Column('smallint', { default: 1 })
  attempt: number;

  @Column('uuid', { nullable: true })
  profileId: string | null;

  @Column('uuid', { nullable: true })
  replayOf: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
