import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditQueries } from './audit.queries';
import { AuditService } from './audit.service';
import { AuditEntry } from './entities/audit-entry.entity';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntry])],
  providers: [AuditService, AuditQueries],
  exports: [AuditService],
})
export class AuditModule {}
