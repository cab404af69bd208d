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
      'The superadmins, every space with its members and roles, and the product governance roles, by email, space slug and product name (names are unique per space). The answer is what `POST /admin/permissions/import` takes as `document`. ' +
      "A space's `members` are the roles granted directly (the members API, an import, the creator), which is what an import reads and writes; the roles mapped SCIM groups grant are listed read-only in `group_grants` (an import ignores them). A member's effective role, which permission checks read, is the highest of both.",
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
      'Memberships are direct grants: the document is compared with the direct roles, an import sets or clears them, and the effective roles are then recomputed with the roles mapped SCIM groups grant, which an import never changes. So `replace` does not remove a member only through groups, and a removed direct grant leaves a member whom a group still grants a role; such changes carry `effective_role` and a `note` (e.g. `direct grant removed, still editor through group X`). The admin rule counts effective roles: a listed space left without an admin is a 422 entry, as is a product role for someone who would be a member neither directly nor through a group. ' +
      '`name`, `features` and `group_grants` of a space are for reference and not applied. With `dry_run` nothing is written and the answer lists the changes that would be made.',
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
