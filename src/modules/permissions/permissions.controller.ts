import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  ImportPermissionsDto,
  PermissionsDocumentResponse,
  PermissionsImportResponse,
} from './dto/permissions.dto';
import { PermissionsService } from './permissions.service';

@ApiTags('Administration')
@Controller('admin/permissions')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get('export')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'exportPermissions',
    summary: 'Export permissions as a document',
    description:
      'The superadmins, every space with its members and roles, and the product governance roles, by email, space slug and product name (names are unique per space). The answer is what `POST /admin/permissions/import` takes as `document`.',
  })
  @ApiOkResponse({ type: PermissionsDocumentResponse })
  exportPermissions(@CurrentActor() actor: Actor): Promise<PermissionsDocumentResponse> {
    return this.permissions.export(actor);
  }

  @Post('import')
  @SuperadminOnly()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'importPermissions',
    summary: 'Import permissions from a document',
    description:
      'The whole document is checked first: unknown emails, spaces or products, bad roles, duplicate entries, a listed space left without an admin, a product role for someone who would not be a member, and a replace that would drop the last active superadmin or your own superadmin flag all answer one 422 listing every bad entry, before anything changes. ' +
      'Then the changes are applied in one transaction and audited. `merge` adds and updates; `replace` also removes the superadmin flags the document does not list, and the memberships and product roles of the spaces it lists that it does not name (spaces it does not list are left alone). Spaces are never created: create them first. ' +
      '`name` and `features` of a space are for reference and not applied. With `dry_run` nothing is written and the answer lists the changes that would be made.',
  })
  @ApiOkResponse({ type: PermissionsImportResponse })
  @ApiProblems(422)
  importPermissions(
    @CurrentActor() actor: Actor,
    @Body() dto: ImportPermissionsDto,
  ): Promise<PermissionsImportResponse> {
    return this.permissions.import(actor, dto);
  }
}
