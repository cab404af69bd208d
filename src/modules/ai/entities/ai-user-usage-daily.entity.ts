import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

const toNumber = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/** Daily rollup of AI logs by person and feature; `user_key` is the user id, or '' for calls without one. */
@Entity('ai_user_usage_daily')
@Index('ai_user_usage_daily_user_idx', ['userKey', 'day'])
export class AiUserUsageDaily {
  @PrimaryColumn('date')
  day: string;

  @PrimaryColumn('text')
  userKey: string;

  @PrimaryColumn('text')
  feature: string;

  @Column('integer', { default: 0 })
  calls: number;

  @Column('integer', { default: 0 })
  failures: number;

  @Column('bigint', { default: 0, transformer: toNumber })
  inputTokens: number;

  @Column('bigint', { default: 0, transformer: toNumber })
  outputTokens: number;

  @Column('numeric', { precision: 14, scale: 6, default: 0, transformer: toNumber })
  costUsd: number;
}
