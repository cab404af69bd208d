import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Alert } from '../../quality/entities/alert.entity';
import { LineageRun } from './lineage-run.entity';

/**
 * The alert a failed run raised on one of its output products: one per
 * (run, product), whatever the number of failure events; `resolved_at` is set
 * when a later successful run of the job resolved it.
 */
@Entity('lineage_run_alerts')
@Index('lineage_run_alerts_job_open_idx', ['jobId', 'failedAt'], { where: 'resolved_at IS NULL' })
@Index('lineage_run_alerts_alert_idx', ['alertId'])
export class LineageRunAlert {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'lineage_run_alerts_pkey' })
  lineageRunId: string;

  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'lineage_run_alerts_pkey' })
  productId: string;

  @Column('uuid')
  jobId: string;

  @Column('uuid')
  alertId: string;

  /** The eventTime of the failure. */
  @Column('timestamptz')
  failedAt: Date;

  @Column('timestamptz', { nullable: true })
  resolvedAt: Date | null;

  @ManyToOne(() => LineageRun, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'lineage_run_id', foreignKeyConstraintName: 'lineage_run_alerts_run_fk' })
  run?: LineageRun;

  @ManyToOne(() => Alert, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'alert_id', foreignKeyConstraintName: 'lineage_run_alerts_alert_fk' })
  alert?: Alert;
}
