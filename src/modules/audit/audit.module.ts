import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';

/** The audit log's read side; entries are written by the platform AuditService in business transactions. */
@Module({ controllers: [AuditController] })
export class AuditLogModule {}
