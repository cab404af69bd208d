import { Global, Module } from '@nestjs/common';
import { GovernanceDirectory } from '../../common/permissions/space-access.port';
import { GovernanceDirectoryService } from './governance-directory.service';

/** Global, so that the users module (below the catalog) can show a user's governance roles. */
@Global()
@Module({
  providers: [{ provide: GovernanceDirectory, useClass: GovernanceDirectoryService }],
  exports: [GovernanceDirectory],
})
export class GovernanceDirectoryModule {}
