import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, PageOf } from '../../common/http/page.dto';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { AuditService } from '../../platform/audit/audit.service';
import { AuditEntryResponse, ListAuditLogQuery } from './dto/audit.dto';

@ApiTags('Administration')
@Controller('admin/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAuditLog',
    summary: 'Read the audit log (superadmin)',
    description:
      'Security-relevant actions (sign-ins and failures, password changes and resets, role and status changes, impersonation, deletions, key management), newest first, with who acted, from which IP and with which credential.',
  })
  @ApiOkResponse({ type: PageOf(AuditEntryResponse) })
  @ApiProblems(422)
  async list(@Query() query: ListAuditLogQuery): Promise<Page<AuditEntryResponse>> {
    const { items, total } = await this.audit.list({
      actorId: query.actor_id,
      action: query.action,
      resourceType: query.resource_type,
      resourceId: query.resource_id,
      spaceId: query.space_id,
      since: query.since,
      until: query.until,
      skip: query.skip ?? 0,
      limit: query.limit ?? 50,
    });
    return {
      items: items.map((e) => ({
        id: e.id,
        action: e.action,
        actor_id: e.actorId,
        impersonator_id: e.impersonatorId,
        credential: e.credential,
        resource_type: e.resourceType,
        resource_id: e.resourceId,
        space_id: e.spaceId,
        ip: e.ip,
        details: e.details,
        created_at: e.createdAt.toISOString(),
      })),
      total,
    };
  }
}
