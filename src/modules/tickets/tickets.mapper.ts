import type { PersonRef } from '../../common/http/person-ref.dto';
import type { User } from '../users/entities/user.entity';
import type { TicketCommentResponse, TicketResponse } from './dto/ticket.dto';
import type { TicketComment } from './entities/ticket-comment.entity';
import type { Ticket } from './entities/ticket.entity';

export function personOf(users: Map<string, User>, id: string): PersonRef {
  const user = users.get(id);
  return { id, full_name: user?.fullName ?? '' };
}

export function toTicketResponse(
  ticket: Ticket,
  users: Map<string, User>,
  incidentIds: string[],
): TicketResponse {
  return {
    id: ticket.id,
    space_id: ticket.spaceId,
    title: ticket.title,
    description: ticket.description,
    status: ticket.status,
    priority: ticket.priority,
    reporter: personOf(users, ticket.reporterId),
    assignee: ticket.assigneeId ? personOf(users, ticket.assigneeId) : null,
    product_id: ticket.productId,
    incident_ids: incidentIds,
    created_at: ticket.createdAt.toISOString(),
    updated_at: ticket.updatedAt.toISOString(),
  };
}

export function toCommentResponse(comment: TicketComment, users: Map<string, User>): TicketCommentResponse {
  return {
    id: comment.id,
    ticket_id: comment.ticketId,
    body: comment.body,
    author: personOf(users, comment.authorId),
    mentioned_user_ids: comment.mentionedUserIds,
    created_at: comment.createdAt.toISOString(),
  };
}

export function ticketEventData(ticket: Ticket) {
  return {
    ticket_id: ticket.id,
    space_id: ticket.spaceId,
    title: ticket.title,
    status: ticket.status,
    priority: ticket.priority,
    reporter_id: ticket.reporterId,
    assignee_id: ticket.assigneeId,
    product_id: ticket.productId,
  };
}
