import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { ConnectorsModule } from '../connectors/connectors.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { TicketsModule } from '../tickets/tickets.module';
import { AlertExplanationsService } from './alert-explanations.service';
import { AlertIngestion } from './alert-ingestion.service';
import { AlertsController } from './alerts.controller';
import { AlertsService } from './alerts.service';
import { CheckRunnerService } from './check-runner.service';
import { CheckRunsController, ChecksController } from './checks.controller';
import { ChecksService } from './checks.service';
import { Alert } from './entities/alert.entity';
import { CheckRun } from './entities/check-run.entity';
import { Check } from './entities/check.entity';
import { IncidentEvent } from './entities/incident-event.entity';
import { Incident } from './entities/incident.entity';
import { IncidentsController } from './incidents.controller';
import { IncidentsService } from './incidents.service';
import { QualityReadService } from './quality-read.service';
import { QualitySignalsService } from './quality-signals.service';
import { QualityQueries } from './quality.queries';

/** Quality checks, alerts and correlated incidents. Tickets are linked through TicketsService (never the other way). */
@Module({
  imports: [
    TypeOrmModule.forFeature([Check, CheckRun, Alert, Incident, IncidentEvent]),
    CatalogModule,
    ConnectorsModule,
    NotificationsModule,
    TicketsModule,
  ],
  controllers: [ChecksController, CheckRunsController, AlertsController, IncidentsController],
  providers: [
    ChecksService,
    CheckRunnerService,
    AlertsService,
    IncidentsService,
    AlertIngestion,
    QualityReadService,
    QualitySignalsService,
    AlertExplanationsService,
    QualityQueries,
  ],
  exports: [QualityReadService, QualitySignalsService, AlertExplanationsService],
})
export class QualityModule {}
