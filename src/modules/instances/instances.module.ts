import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InstanceScopeModule } from '../../platform/instance-scope/instance-scope.module';
import { UsersModule } from '../users/users.module';
import { InstanceMembership } from './entities/instance-membership.entity';
import { Instance } from './entities/instance.entity';
import { InstancesController } from './instances.controller';
import { InstancesQueries } from './instances.queries';
import { InstancesService } from './instances.service';

/** The instance registry of the control plane; it also tells the database layer where each instance lives. */
@Module({
  imports: [UsersModule, InstanceScopeModule, TypeOrmModule.forFeature([Instance, InstanceMembership])],
  controllers: [InstancesController],
  providers: [InstancesService, InstancesQueries],
  exports: [InstancesService],
})
export class InstancesModule {}
