import { Column, Entity, PrimaryColumn } from 'typeorm';

const toNumber = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/**
 * Daily rollup of AI logs by feature and model, upserted by the statement
 * that writes each log, so usage reports and budget checks read a few rows
 * per day instead of scanning logs.
 */
@Entity('ai_usage_daily')
export class AiUsageDaily {
  @PrimaryColumn('date')
  day: string;

  @PrimaryColumn('text')
  feature: string;

  @PrimaryColumn('text')
  provider: string;

  @PrimaryColumn('text')
  model: string;

  @Column('integer', { default: 0 })
  calls: number;

  @Column('integer', { default: 0 })
  failures: number;

  @Column('integer', { default: 0 })
  blocked: number;

  @Column('integer', { default: 0 })
  budgetExceeded: number;

  /** Calls on which a guardrail acted (redaction, injection flag or block). */
  @Column('integer', { default: 0 })
  guardedCalls: number;

  @Column('bigint', { default: 0, transformer: toNumber })
  inputTokens: number;

  @Column('bigint', { default: 0, transformer: toNumber })
  outputTokens: number;

  @Column('numeric', { precision: 14, scale: 6, default: 0, transformer: toNumber })
  costUsd: number;

  @Column('bigint', { default: 0, transformer: toNumber })
  latencyMsTotal: number;
}
