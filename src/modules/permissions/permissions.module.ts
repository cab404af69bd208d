import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { UsersModule } from '../users/users.module';
import { PermissionsController } from './permissions.controller';
import { PermissionsService } from './permissions.service';

/** Permissions export and import (`/admin/permissions/*`); the spaces module is global. */
@Module({
  imports: [UsersModule, CatalogModule],
  controllers: [PermissionsController],
  providers: [PermissionsService],
})
export class PermissionsModule {}
