import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { InstanceMembership } from './entities/instance-membership.entity';
import { Instance } from './entities/instance.entity';
import { InstanceUserCopies } from './instance-user-copies';
import { InstancesController } from './instances.controller';
import { InstancesService } from './instances.service';

/** The instance registry of the control plane; it also tells the database layer where each instance lives. */
@Module({
  imports: [UsersModule, TypeOrmModule.forFeature([Instance, InstanceMembership])],
  controllers: [InstancesController],
  providers: [InstancesService, InstanceUserCopies],
  exports: [InstancesService, InstanceUserCopies],
})
export class InstancesModule {}
