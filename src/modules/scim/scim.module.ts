import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { UsersModule } from '../users/users.module';
import { ScimGroupMember } from './entities/scim-group-member.entity';
import { ScimGroupRoleMapping } from './entities/scim-group-role-mapping.entity';
import { ScimGroup } from './entities/scim-group.entity';
import { ScimToken } from './entities/scim-token.entity';
import { ScimUser } from './entities/scim-user.entity';
import { ScimAuthGuard } from './scim-auth.guard';
import { ScimDiscoveryController } from './scim-discovery.controller';
import { GroupMembersQueries } from './scim-group-members.queries';
import { ScimGroupMappingsController } from './scim-group-mappings.controller';
import { ScimGroupMappingsService } from './scim-group-mappings.service';
import { ScimGroupsController } from './scim-groups.controller';
import { ScimGroupsService } from './scim-groups.service';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimTokensService } from './scim-tokens.service';
import { ScimUsersController } from './scim-users.controller';
import { ScimUsersService } from './scim-users.service';
import { ScimGroupMappingsQueries } from './scim-group-mappings.queries';
import { ScimGroupsQueries } from './scim-groups.queries';
import { ScimTokensQueries } from './scim-tokens.queries';
import { ScimUsersQueries } from './scim-users.queries';

/** SCIM 2.0 provisioning under /scim/v2, its tokens under /admin/scim-tokens and group mappings under /admin/scim-group-mappings. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ScimToken, ScimUser, ScimGroup, ScimGroupMember, ScimGroupRoleMapping]),
    UsersModule,
    AccountsModule,
    ApiKeysModule,
  ],
  controllers: [
    ScimDiscoveryController,
    ScimUsersController,
    ScimGroupsController,
    ScimTokensController,
    ScimGroupMappingsController,
  ],
  providers: [
    ScimTokensService,
    ScimUsersService,
    ScimGroupsService,
    ScimGroupMappingsService,
    GroupMembersQueries,
    ScimUsersQueries,
    ScimGroupsQueries,
    ScimGroupMappingsQueries,
    ScimTokensQueries,
    ScimAuthGuard,
  ],
})
export class ScimModule {}
