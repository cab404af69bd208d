import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A cron schedule; whichever replica claims a due row enqueues the occurrence, so it runs once. */
@Entity('job_schedules')
export class JobSchedule {
  @PrimaryColumn('text')
  name: string;

  @Column('text')
  cron: string;

  @Column('text', { default: 'UTC' })
  timezone: string;

  @Column('timestamptz')
  nextRunAt: Date;

  @Column('timestamptz', { nullable: true })
  lastRunAt: Date | null;
}
