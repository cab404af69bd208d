import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { LineageRunsModule } from '../lineage-runs/lineage-runs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { NamespaceMapping } from './entities/namespace-mapping.entity';
import { OpenLineageEvent } from './entities/openlineage-event.entity';
import { ProductSchemaChange } from './entities/product-schema-change.entity';
import { NamespaceMappingsService } from './namespace-mappings.service';
import { OpenLineageApplier } from './openlineage-applier.service';
import { OpenLineageIngestService } from './openlineage-ingest.service';
import { OpenLineageProcessor } from './openlineage-processor.service';
import { OpenLineageSettingsController } from './openlineage-settings.controller';
import { OpenLineageController } from './openlineage.controller';
import { OpenLineageQueries } from './openlineage.queries';
import { SchemaChangeNotifier } from './schema-change.notifier';
import { SchemaChangesService } from './schema-changes.service';

/**
 * OpenLineage ingestion: the HTTP transport's endpoint, namespace mappings,
 * the raw event store and its processor, which turns events into products,
 * lineage, columns and schema changes, and hands runs to run health
 * (LineageRunsModule's RunHealthPort).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([OpenLineageEvent, NamespaceMapping, ProductSchemaChange]),
    CatalogModule,
    LineageRunsModule,
    NotificationsModule,
  ],
  controllers: [OpenLineageController, OpenLineageSettingsController],
  providers: [
    OpenLineageQueries,
    NamespaceMappingsService,
    OpenLineageIngestService,
    OpenLineageApplier,
    OpenLineageProcessor,
    SchemaChangesService,
    SchemaChangeNotifier,
  ],
  exports: [OpenLineageProcessor],
})
export class OpenLineageModule {}
