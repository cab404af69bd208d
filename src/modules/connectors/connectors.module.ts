import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { ConnectorsController } from './connectors.controller';
import { ConnectorsQueries } from './connectors.queries';
import { ConnectorsService } from './connectors.service';
import { Connector } from './entities/connector.entity';
import { SourceSystem } from './entities/source-system.entity';
import { SourceCatalog } from './source-catalog.service';
import { SourceSystemsController } from './source-systems.controller';
import { SourceSystemsService } from './source-systems.service';
import { UserDatabase } from './user-database.client';
import { SourceConnectionPool } from './source-connection.pool';

/**
 * Source systems and connectors to users' databases. Quality checks and the
 * visual query run their queries through ConnectorsService and resolve names
 * with SourceCatalog.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Connector, SourceSystem]), CatalogModule],
  controllers: [ConnectorsController, SourceSystemsController],
  providers: [
    ConnectorsService,
    SourceSystemsService,
    UserDatabase,
    SourceConnectionPool,
    SourceCatalog,
    ConnectorsQueries,
  ],
  exports: [ConnectorsService, SourceCatalog],
})
export class ConnectorsModule {}
