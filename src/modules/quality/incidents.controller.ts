import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import {
  IncidentDetailResponse,
  IncidentPathParams,
  IncidentResponse,
  LinkTicketDto,
  ListIncidentsQuery,
  NotifyDownstreamResponse,
  TimelineEntryResponse,
  UpdateIncidentDto,
} from './dto/quality.dto';
import { IncidentsService } from './incidents.service';
import { ClaimsInTransaction } from '../../platform/idempotency/claims-in-transaction.decorator';

const FEATURE = "Needs the space's `quality.incidents` feature (403 naming it when switched off).";

@ApiTags('Quality incidents')
@Controller('spaces/:slug/incidents')
export class IncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listIncidents',
    summary: 'List the incidents of a space',
    description: `Newest first; \`status\` filters; \`{items, total}\` with \`skip\` and \`limit\` (default 50, at most 200). ${FEATURE}`,
  })
  @ApiOkResponse({ type: PageOf(IncidentResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListIncidentsQuery,
  ): Promise<Page<IncidentResponse>> {
    return this.incidents.list(access, query);
  }

  @Get(':incident_id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getIncident',
    summary: 'Get an incident with its alerts, blast radius and linked tickets',
    description: `\`blast_radius\` lists the products downstream of the root as \`{id, name}\`. ${FEATURE}`,
  })
  @ApiOkResponse({ type: IncidentDetailResponse })
  @ApiProblems(422)
  get(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
  ): Promise<IncidentDetailResponse> {
    return this.incidents.get(access, params.incident_id);
  }

  @Get(':incident_id/timeline')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getIncidentTimeline',
    summary: 'The timeline of an incident',
    description:
      'Chronological: an `alert` entry (`alert_id`, `alert_type`, `added_at`, `severity`) for each alert that joined, and a ' +
      `\`status_change\` entry (\`from_status\`, \`to_status\`, \`changed_by\`, \`added_at\`) for each status move. ${FEATURE}`,
  })
  @ApiOkResponse({ type: TimelineEntryResponse, isArray: true })
  @ApiProblems(422)
  timeline(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
  ): Promise<TimelineEntryResponse[]> {
    return this.incidents.timeline(access, params.incident_id);
  }

  @Patch(':incident_id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateIncident',
    summary: 'Update an incident (edit access)',
    description:
      'Only the fields given change. Status moves freely between `open` and `investigating`; a move to `resolved` sets ' +
      '`resolved_at` and resolves the open alerts (as `resolve` does); reopening a resolved incident clears `resolved_at`. ' +
      'No move is refused. A set `severity` is raised again by a more severe alert joining later. A set `root_product_id` ' +
      '(a product of the space, 422 otherwise) stays the root as alerts join; null hands the root back to correlation. The ' +
      `blast radius follows the root. Answers the full incident. ${FEATURE}`,
  })
  @ApiOkResponse({ type: IncidentDetailResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
    @Body() dto: UpdateIncidentDto,
  ): Promise<IncidentDetailResponse> {
    return this.incidents.update(actor, access, params.incident_id, dto);
  }

  @Post(':incident_id/resolve')
  @ClaimsInTransaction()
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resolveIncident',
    summary: 'Resolve an incident (edit access)',
    description:
      'Sets `resolved_at` and resolves its unresolved (open or acknowledged) alerts; the owners and stewards of their products ' +
      '(and of the blast radius, if it was notified) get a `quality_resolved` notification. Resolving a resolved incident ' +
      `changes nothing. Answers the full incident. ${FEATURE}`,
  })
  @ApiOkResponse({ type: IncidentDetailResponse })
  @ApiProblems(422)
  resolve(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
  ): Promise<IncidentDetailResponse> {
    return this.incidents.resolve(actor, access, params.incident_id);
  }

  @Post(':incident_id/notify-downstream')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'notifyIncidentDownstream',
    summary: 'Tell the owners and stewards of the blast radius (edit access)',
    description:
      "Sends a `quality_alert` notification (and its email, following each recipient's preferences) to every owner and steward " +
      'of every product in the blast radius, once per user. Answers how many users were notified (inactive users are skipped) ' +
      `and how many products the blast radius holds. ${FEATURE}`,
  })
  @ApiOkResponse({ type: NotifyDownstreamResponse })
  @ApiProblems(422)
  notifyDownstream(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
  ): Promise<NotifyDownstreamResponse> {
    return this.incidents.notifyDownstream(actor, access, params.incident_id);
  }

  @Post(':incident_id/link-ticket')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'linkIncidentTicket',
    summary: 'Link a ticket to an incident (edit access)',
    description:
      '`ticket_id` must name a ticket of the same space (422). Linking twice changes nothing. The ticket then lists the incident ' +
      `in \`incident_ids\`. Answers the full incident. ${FEATURE}`,
  })
  @ApiOkResponse({ type: IncidentDetailResponse })
  @ApiProblems(422)
  linkTicket(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: IncidentPathParams,
    @Body() dto: LinkTicketDto,
  ): Promise<IncidentDetailResponse> {
    return this.incidents.linkTicket(actor, access, params.incident_id, dto);
  }
}
