import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { ConnectorsController } from './connectors.controller';
import { ConnectorsService } from './connectors.service';
import { Connector } from './entities/connector.entity';
import { SourceSystem } from './entities/source-system.entity';
import { SourceSystemsController } from './source-systems.controller';
import { SourceSystemsService } from './source-systems.service';
import { UserDatabase } from './user-database';

/** Source systems and connectors to users' databases; quality checks run their queries through ConnectorsService. */
@Module({
  imports: [TypeOrmModule.forFeature([Connector, SourceSystem]), CatalogModule],
  controllers: [ConnectorsController, SourceSystemsController],
  providers: [ConnectorsService, SourceSystemsService, UserDatabase],
  exports: [ConnectorsService],
})
export class ConnectorsModule {}
