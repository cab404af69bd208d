import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MembershipDirectory, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { UsersModule } from '../users/users.module';
import { SpaceMembership } from './entities/space-membership.entity';
import { Space } from './entities/space.entity';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { MembershipDirectoryService } from './membership-directory.service';
import { SpaceAccessService } from './space-access.service';
import { SpacesController } from './spaces.controller';
import { MembershipRolesQueries } from './membership-roles.queries';
import { SpacesQueries } from './spaces.queries';
import { SpacesService } from './spaces.service';

/**
 * Global so that every space-scoped module (and the users module, which
 * this one depends on) gets the permission port without importing it.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Space, SpaceMembership]), UsersModule],
  controllers: [SpacesController, MembersController],
  providers: [
    SpacesService,
    MembersService,
    SpacesQueries,
    MembershipRolesQueries,
    { provide: SpaceAccessPort, useClass: SpaceAccessService },
    { provide: MembershipDirectory, useClass: MembershipDirectoryService },
  ],
  exports: [SpaceAccessPort, MembershipDirectory, SpacesService, MembersService],
})
export class SpacesModule {}
