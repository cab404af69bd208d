import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { AlertsService } from './alerts.service';
import { AlertPathParams, AlertResponse, CreateAlertDto, ListAlertsQuery } from './dto/quality.dto';
import { ClaimsInTransaction } from '../../platform/idempotency/claims-in-transaction.decorator';

@ApiTags('Quality alerts')
@Controller('spaces/:slug/alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @Post()
  @ClaimsInTransaction()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createAlert',
    summary: 'Push an alert from a monitoring tool (edit access)',
    description:
      'The alert opens `open` and is correlated at once: it joins the most recent open or investigating incident of the space, ' +
      'opened within the last 6 hours, that has an alert on the same product or on one linked to it by lineage (upstream or ' +
      'downstream, any depth); otherwise it opens a new incident titled after its type and product. Simultaneous alerts of one ' +
      "space are correlated one after the other. When its product first appears in an incident, the product's owners and " +
      'stewards get a `quality_alert` notification. `product_id` must name a product of the space (422).',
  })
  @ApiCreatedResponse({ type: AlertResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateAlertDto,
  ): Promise<AlertResponse> {
    return this.alerts.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listAlerts',
    summary: 'List the alerts of a space',
    description:
      'Newest first. Filters combine with AND: `status`, `severity`, `alert_type`, `product_id`, `incident_id`, `check_id`. ' +
      '`{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(AlertResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListAlertsQuery,
  ): Promise<Page<AlertResponse>> {
    return this.alerts.list(access, query);
  }

  @Get(':alert_id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getAlert',
    summary: 'Get an alert',
    description: 'One alert of the space with its status, severity and incident, if any.',
  })
  @ApiOkResponse({ type: AlertResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: AlertPathParams): Promise<AlertResponse> {
    return this.alerts.get(access, params.alert_id);
  }

  @Post(':alert_id/acknowledge')
  @ClaimsInTransaction()
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acknowledgeAlert',
    summary: 'Acknowledge an alert (edit access)',
    description:
      'Alert states: `open` -> `acknowledged` -> `resolved`, or `open` -> `resolved`. Only an open alert can be acknowledged (409).',
  })
  @ApiOkResponse({ type: AlertResponse })
  @ApiProblems(409, 422)
  acknowledge(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: AlertPathParams,
  ): Promise<AlertResponse> {
    return this.alerts.acknowledge(actor, access, params.alert_id);
  }

  @Post(':alert_id/resolve')
  @ClaimsInTransaction()
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resolveAlert',
    summary: 'Resolve an alert (edit access)',
    description:
      'From `open` or `acknowledged`; a resolved alert answers 409. Emits `alert.resolved`. The incident stays as it is.',
  })
  @ApiOkResponse({ type: AlertResponse })
  @ApiProblems(409, 422)
  resolve(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: AlertPathParams,
  ): Promise<AlertResponse> {
    return this.alerts.resolve(actor, access, params.alert_id);
  }
}
