import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MetadataConfigModule } from '../metadata-config/metadata-config.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { UsersModule } from '../users/users.module';
import { AccessRequestNotifier } from './access-request.notifier';
import { AccessRequestsController } from './access-requests.controller';
import { AccessRequestsService } from './access-requests.service';
import { AccessRequest } from './entities/access-request.entity';
import { DatasetIdentity } from './entities/dataset-identity.entity';
import { LineageColumnEdge } from './entities/lineage-column-edge.entity';
import { LineageEdge } from './entities/lineage-edge.entity';
import { ProductCount } from './entities/product-count.entity';
import { ProductRole } from './entities/product-role.entity';
import { Product } from './entities/product.entity';
import { GovernanceDirectoryModule } from './governance-directory.module';
import { LineageController } from './lineage.controller';
import { LineageService } from './lineage.service';
import { LineageQueries } from './lineage.queries';
import { ProductDirectoryService } from './product-directory.service';
import { ProductReadModelQueries } from './product-read-model.queries';
import { ProductQueries } from './products.queries';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';

/** Data products, their governance roles, lineage and access requests. SpaceAccessPort comes from the global SpacesModule. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      Product,
      ProductRole,
      ProductCount,
      LineageEdge,
      LineageColumnEdge,
      DatasetIdentity,
      AccessRequest,
    ]),
    UsersModule,
    MetadataConfigModule,
    GovernanceDirectoryModule,
    NotificationsModule,
  ],
  controllers: [ProductsController, LineageController, AccessRequestsController],
  providers: [
    ProductsService,
    ProductDirectoryService,
    LineageService,
    ProductQueries,
    ProductReadModelQueries,
    LineageQueries,
    AccessRequestsService,
    AccessRequestNotifier,
  ],
  exports: [ProductsService, ProductDirectoryService, LineageService],
})
export class CatalogModule {}
