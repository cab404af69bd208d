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
import type { ReportFrequency, ReportType } from '../report-schedule';

/** A report mailed to its recipients at 08:00 (schedule's time zone) every day, Monday or 1st of the month. */
@Entity('report_schedules')
@Index('report_schedules_space_created_idx', ['spaceId', 'createdAt', 'id'])
@Index('report_schedules_due_idx', ['nextRunAt'], { where: 'is_enabled' })
export class ReportSchedule {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  @Column('text')
  reportType: ReportType;

  @Column('text')
  frequency: ReportFrequency;

  @Column('text', { default: 'UTC' })
  timezone: string;

  @Column('text', { array: true })
  recipients: string[];

  @Column('boolean', { default: true })
  isEnabled: boolean;

  @Column('timestamptz', { nullable: true })
  lastSentAt: Date | null;

  /** Null while disabled. */
  @Column('timestamptz', { nullable: true })
  nextRunAt: Date | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'report_schedules_space_fk' })
  space?: Space;
}
