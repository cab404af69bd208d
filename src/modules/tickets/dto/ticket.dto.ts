import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { EnumField, StringField, TextField, UuidField } from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { PersonRef } from '../../../common/http/person-ref.dto';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../entities/ticket.entity';

export class CreateTicketDto {
  @UuidField({ description: 'The space the ticket belongs to; the caller needs edit access to it.' })
  space_id: string;

  @TextField({ max: 300 })
  title: string;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  description?: string | null;

  @EnumField(TICKET_PRIORITIES, { optional: true, default: 'medium', enumName: 'TicketPriority' })
  priority?: string;

  @UuidField({ optional: true, nullable: true, description: 'A member of the space (422 otherwise).' })
  assignee_id?: string | null;

  @UuidField({ optional: true, nullable: true, description: 'A product of the space (422 otherwise).' })
  product_id?: string | null;
}

/**
 * Every field optional; only those given change. `priority` is declared here since create documents a
 * default that must not apply on update, and the links since null clears them on update.
 */
export class UpdateTicketDto extends UpdateType(CreateTicketDto, ['title', 'description'] as const) {
  @EnumField(TICKET_STATUSES, { optional: true, enumName: 'TicketStatus' })
  status?: string;

  @EnumField(TICKET_PRIORITIES, { optional: true, enumName: 'TicketPriority' })
  priority?: string;

  @UuidField({ optional: true, nullable: true, description: 'A member of the space; null unassigns.' })
  assignee_id?: string | null;

  @UuidField({ optional: true, nullable: true, description: 'A product of the space; null unlinks.' })
  product_id?: string | null;
}

export class ListTicketsQuery extends PageQuery {
  @UuidField({ optional: true, description: 'Tickets of this space only (404 when not a member).' })
  space_id?: string;

  @EnumField(TICKET_STATUSES, { optional: true, enumName: 'TicketStatus' })
  status?: string;

  @UuidField({ optional: true, description: 'Tickets assigned to this user.' })
  assignee_id?: string;
}

export class TicketParams {
  @UuidField()
  ticket_id: string;
}

export class CreateCommentDto {
  @TextField({
    max: 20_000,
    description:
      "`@<email>` mentions a member of the ticket's space, who gets an `issue_mentioned` notification.",
  })
  body: string;
}

export class TicketResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty()
  title: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: TICKET_STATUSES, enumName: 'TicketStatus' })
  status: string;

  @ApiProperty({ enum: TICKET_PRIORITIES, enumName: 'TicketPriority' })
  priority: string;

  @ApiProperty({ type: PersonRef, description: 'Who filed the ticket; the ticket owner.' })
  reporter: PersonRef;

  @ApiProperty({ type: PersonRef, nullable: true })
  assignee: PersonRef | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  product_id: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    isArray: true,
    description: 'Quality incidents this ticket is linked to (oldest link first).',
  })
  incident_ids: string[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class TicketCommentResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  ticket_id: string;

  @ApiProperty()
  body: string;

  @ApiProperty({ type: PersonRef })
  author: PersonRef;

  @ApiProperty({
    type: String,
    format: 'uuid',
    isArray: true,
    description: 'Members mentioned with `@<email>` (and notified).',
  })
  mentioned_user_ids: string[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** A ticket as shown on an incident: the ticket's own fields, its assignee by id, and when it was linked. */
export class LinkedTicketResponse extends PickType(TicketResponse, [
  'id',
  'title',
  'status',
  'priority',
] as const) {
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  assignee_id: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the ticket was linked.' })
  linked_at: string;
}
