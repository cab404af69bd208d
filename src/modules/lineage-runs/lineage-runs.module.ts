import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { QualityModule } from '../quality/quality.module';
import { LineageJob } from './entities/lineage-job.entity';
import { LineageRunAlert } from './entities/lineage-run-alert.entity';
import { LineageRunDataset } from './entities/lineage-run-dataset.entity';
import { LineageRun } from './entities/lineage-run.entity';
import { LineageJobsController, ProductRunsController } from './lineage-runs.controller';
import { LineageRunsQueries } from './lineage-runs.queries';
import { LineageRunsService } from './lineage-runs.service';
import { RunHealthPort } from './run-event';
import { RunHealthService } from './run-health.service';

/**
 * Run health of OpenLineage jobs: runs per job, alerts on failed runs, check
 * runs from assertions (through quality's QualitySignalsService), and their reads.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([LineageJob, LineageRun, LineageRunDataset, LineageRunAlert]),
    CatalogModule,
    QualityModule,
  ],
  controllers: [LineageJobsController, ProductRunsController],
  providers: [
    RunHealthService,
    { provide: RunHealthPort, useExisting: RunHealthService },
    LineageRunsService,
    LineageRunsQueries,
  ],
  exports: [RunHealthPort],
})
export class LineageRunsModule {}
