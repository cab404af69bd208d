import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import type { IncidentStatus } from './incident.entity';

/**
 * How many incidents a space has in each status, kept in the transactions
 * that open incidents or move them, so the incident list answers its total
 * without counting (the list must stay fast at 100k incidents).
 */
@Entity('quality_incident_counts')
export class IncidentCount {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('text')
  status: IncidentStatus;

  @Column('integer', { default: 0 })
  total: number;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'quality_incident_counts_space_fk' })
  space?: Space;
}
