import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import {
  CreateCommentDto,
  CreateTicketDto,
  ListTicketsQuery,
  TicketCommentResponse,
  TicketParams,
  TicketResponse,
  UpdateTicketDto,
} from './dto/ticket.dto';
import { TicketsService } from './tickets.service';
import { ClaimsInTransaction } from '../../platform/idempotency/claims-in-transaction.decorator';

@ApiTags('Issue tracker')
@Controller('issues/tickets')
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @Post()
  @ClaimsInTransaction()
  @Authenticated()
  @ApiOperation({
    operationId: 'createTicket',
    summary: 'File a ticket (edit access to the space)',
    description:
      'The caller becomes the reporter, the ticket owner. A new ticket is `open`; `priority` defaults to `medium`. ' +
      '`assignee_id` must name a member of the space and `product_id` a product of it (422 naming the field). ' +
      'A space the caller is not a member of answers 404, a viewer 403. The assignee (unless it is the caller) gets an `issue_assigned` notification.',
  })
  @ApiCreatedResponse({ type: TicketResponse })
  @ApiProblems(403, 404, 422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateTicketDto): Promise<TicketResponse> {
    return this.tickets.create(actor, dto);
  }

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listTickets',
    summary: 'List tickets',
    description:
      'Tickets of the spaces the caller is a member of (every space for a superadmin), newest first. ' +
      'Filters combine with AND: `space_id` (404 when the caller is not a member), `status`, `assignee_id`. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(TicketResponse) })
  @ApiProblems(404, 422)
  list(@CurrentActor() actor: Actor, @Query() query: ListTicketsQuery): Promise<Page<TicketResponse>> {
    return this.tickets.list(actor, query);
  }

  @Get(':ticket_id')
  @Authenticated()
  @ApiOperation({
    operationId: 'getTicket',
    summary: 'Get a ticket',
    description: 'Any member of its space. `incident_ids` lists the quality incidents it is linked to.',
  })
  @ApiOkResponse({ type: TicketResponse })
  @ApiProblems(404, 422)
  get(@CurrentActor() actor: Actor, @Param() params: TicketParams): Promise<TicketResponse> {
    return this.tickets.get(actor, params.ticket_id);
  }

  @Patch(':ticket_id')
  @Authenticated()
  @ApiOperation({
    operationId: 'updateTicket',
    summary: 'Update a ticket',
    description:
      'The reporter, the assignee, or a member with edit access (403 otherwise). Only the fields given change. ' +
      'Status moves freely among `open`, `in_progress` and `resolved`, and any of them may be `closed`; a closed ticket can only be reopened to `open` (409 otherwise). ' +
      'A new assignee (other than the caller) gets an `issue_assigned` notification.',
  })
  @ApiOkResponse({ type: TicketResponse })
  @ApiProblems(403, 404, 409, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: TicketParams,
    @Body() dto: UpdateTicketDto,
  ): Promise<TicketResponse> {
    return this.tickets.update(actor, params.ticket_id, dto);
  }

  @Delete(':ticket_id')
  @Authenticated()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTicket',
    summary: 'Delete a ticket',
    description:
      'The reporter (ticket owner) or a Space Admin (403 otherwise). Its comments and incident links go with it.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(403, 404, 422)
  async delete(@CurrentActor() actor: Actor, @Param() params: TicketParams): Promise<void> {
    await this.tickets.delete(actor, params.ticket_id);
  }

  @Post(':ticket_id/comments')
  @Authenticated()
  @ApiOperation({
    operationId: 'createTicketComment',
    summary: 'Comment on a ticket',
    description:
      "Any member of the ticket's space may comment. `@<email>` in the body mentions a user: members of the space " +
      '(other than the author) get an `issue_mentioned` notification; anyone else is ignored.',
  })
  @ApiCreatedResponse({ type: TicketCommentResponse })
  @ApiProblems(404, 422)
  comment(
    @CurrentActor() actor: Actor,
    @Param() params: TicketParams,
    @Body() dto: CreateCommentDto,
  ): Promise<TicketCommentResponse> {
    return this.tickets.addComment(actor, params.ticket_id, dto);
  }

  @Get(':ticket_id/comments')
  @Authenticated()
  @ApiOperation({
    operationId: 'listTicketComments',
    summary: 'List the comments of a ticket',
    description: 'Oldest first; `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(TicketCommentResponse) })
  @ApiProblems(404, 422)
  comments(
    @CurrentActor() actor: Actor,
    @Param() params: TicketParams,
    @Query() page: PageQuery,
  ): Promise<Page<TicketCommentResponse>> {
    return this.tickets.listComments(actor, params.ticket_id, page);
  }
}
