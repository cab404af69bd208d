import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Incident, IncidentStatus } from './incident.entity';

/** A status change of an incident, for its timeline (alert entries come from the alerts themselves). */
@Entity('quality_incident_events')
@Index('quality_incident_events_incident_idx', ['incidentId', 'createdAt'])
export class IncidentEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  incidentId: string;

  @Column('text')
  fromStatus: IncidentStatus;

  @Column('text')
  toStatus: IncidentStatus;

  @Column('uuid', { nullable: true })
  actorId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Incident, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'incident_id', foreignKeyConstraintName: 'quality_incident_events_incident_fk' })
  incident?: Incident;
}
