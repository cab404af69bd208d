import { Module } from '@nestjs/common';
import { InstanceScopeQueries } from './instance-scope.queries';
import { InstanceUserCopies } from './instance-user-copies.service';

/**
 * The user copies InstanceScopeGuard (registered globally by
 * request-pipeline.ts) refreshes on each request; InstancesModule uses them
 * too, on membership, sign-in and instance switch.
 */
@Module({
  providers: [InstanceUserCopies, InstanceScopeQueries],
  exports: [InstanceUserCopies],
})
export class InstanceScopeModule {}
