import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import type { IncidentStatus } from './incident.entity';

/**
 * How many incidents a space has in each status, kept in the transactions
 * that open incidents or move them, so the incident list answers its total
 * without counting (the list must stay fast at 100k incidents). A status's
 * count is the sum of its shards; a shard may go below zero.
 */
@Entity('quality_incident_counts')
export class IncidentCount {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('text')
  status: IncidentStatus;

  /** Counts are spread over a few rows per status, so that concurrent incidents do not queue on one row. */
  @PrimaryColumn('smallint')
  shard: number;

  @Column('integer', { default: 0 })
  total: number;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'quality_incident_counts_space_fk' })
  space?: Space;
}
