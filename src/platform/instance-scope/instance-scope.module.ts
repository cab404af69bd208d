import { Module } from '@nestjs/common';
import { InstanceUserCopies } from './instance-user-copies';

/**
 * The user copies InstanceScopeGuard (registered globally by
 * request-pipeline.ts) refreshes on each request; InstancesModule uses them
 * too, on membership, sign-in and instance switch.
 */
@Module({
  providers: [InstanceUserCopies],
  exports: [InstanceUserCopies],
})
export class InstanceScopeModule {}
