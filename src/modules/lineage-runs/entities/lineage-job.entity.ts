import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

/** An OpenLineage job `(namespace, name)` as seen in one space. */
@Entity('lineage_jobs')
@Index('lineage_jobs_space_name_key', ['spaceId', 'namespace', 'name'], { unique: true })
export class LineageJob {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'lineage_jobs_pkey' })
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  namespace: string;

  @Column('text')
  name: string;

  /** The run with the latest event (no foreign key: runs go with their job). */
  @Column('uuid', { nullable: true })
  lastRunId: string | null;

  @Column('timestamptz', { nullable: true })
  lastEventTime: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'lineage_jobs_space_fk' })
  space?: Space;
}
