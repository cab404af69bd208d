import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GovernanceDirectory } from '../../common/permissions/space-access.port';
import { ProductRole } from './entities/product-role.entity';
import { GovernanceDirectoryService } from './governance-directory.service';

/** Global, so that the users module (below the catalog) can show a user's governance roles. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProductRole])],
  providers: [{ provide: GovernanceDirectory, useClass: GovernanceDirectoryService }],
  exports: [GovernanceDirectory],
})
export class GovernanceDirectoryModule {}
