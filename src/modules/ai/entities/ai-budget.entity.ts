import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A budget override for an entry point: `global` or a feature name. Null limits mean none. */
@Entity('ai_budgets')
export class AiBudget {
  @PrimaryColumn('text')
  entryPointId: string;

  @Column('bigint', {
    nullable: true,
    transformer: { to: (v) => v, from: (v) => (v === null ? null : Number(v)) },
  })
  dailyTokens: number | null;

  @Column('bigint', {
    nullable: true,
    transformer: { to: (v) => v, from: (v) => (v === null ? null : Number(v)) },
  })
  monthlyTokens: number | null;

  @Column('numeric', {
    precision: 14,
    scale: 6,
    nullable: true,
    transformer: { to: (v) => v, from: (v) => (v === null ? null : Number(v)) },
  })
  dailyUsd: number | null;

  @Column('numeric', {
    precision: 14,
    scale: 6,
    nullable: true,
    transformer: { to: (v) => v, from: (v) => (v === null ? null : Number(v)) },
  })
  monthlyUsd: number | null;

  @Column('uuid', { nullable: true })
  updatedBy: string | null;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
