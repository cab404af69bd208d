import { Module } from '@nestjs/common';
import { RunHealthPort } from './run-event';
import { RunHealthService } from './run-health.service';

/** Run health of OpenLineage jobs: runs per job, alerts on failed runs, check runs from assertions. */
@Module({
  providers: [RunHealthService, { provide: RunHealthPort, useExisting: RunHealthService }],
  exports: [RunHealthPort],
})
export class LineageRunsModule {}
