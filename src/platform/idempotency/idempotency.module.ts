import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKey } from './entities/idempotency-key.entity';
import { IdempotencyQueries } from './idempotency.queries';
import { IdempotencyStore } from './idempotency.store';

/**
 * `Idempotency-Key` on every POST: keys kept in PostgreSQL, read by
 * IdempotencyGuard, which request-pipeline.ts binds to every POST route.
 */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [IdempotencyStore, IdempotencyQueries],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
