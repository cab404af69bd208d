import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { PoliciesModule } from '../policies/policies.module';
import { QualityModule } from '../quality/quality.module';
import { RisksModule } from '../risks/risks.module';
import { ReportSchedule } from './entities/report-schedule.entity';
import { ReportBuilder } from './report-builder.service';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

/** Report schedules, their previews and their (scheduled) sending by mail. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ReportSchedule]),
    CatalogModule,
    PoliciesModule,
    QualityModule,
    RisksModule,
  ],
  controllers: [ReportsController],
  providers: [ReportsService, ReportBuilder],
})
export class ReportsModule {}
