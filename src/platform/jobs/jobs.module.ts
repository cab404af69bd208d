import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Job } from './entities/job.entity';
import { JobSchedule } from './entities/job-schedule.entity';
import { JobRunner } from './job-runner.service';
import { RetentionService } from './retention.service';
import { Wakeup } from './wakeup.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Job, JobSchedule])],
  providers: [Wakeup, JobRunner, RetentionService],
  exports: [Wakeup, JobRunner],
})
export class JobsModule {}
