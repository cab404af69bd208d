import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import {
  MembershipDirectory,
  roleAtLeast,
  SpaceAccess,
  SpaceAccessPort,
} from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { NotificationsService } from '../notifications/notifications.service';
import type { User } from '../users/entities/user.entity';
import { UserDirectoryService } from '../users/user-directory.service';
import {
  CreateCommentDto,
  CreateTicketDto,
  LinkedTicketResponse,
  ListTicketsQuery,
  TicketCommentResponse,
  TicketResponse,
  UpdateTicketDto,
} from './dto/ticket.dto';
import { TicketComment } from './entities/ticket-comment.entity';
import { Ticket, TicketPriority, TicketStatus } from './entities/ticket.entity';
import { canMoveTicket, mentionedEmails } from './ticket-rules';
import { TicketEditForbidden, TicketMoveForbidden } from './tickets.errors';
import { TicketQueries } from './tickets.queries';
import { ticketEventData, toCommentResponse, toTicketResponse } from './tickets.mapper';

/** A ticket with the caller's access to its space. */
export interface AuthorizedTicket {
  ticket: Ticket;
  access: SpaceAccess;
}

/** The columns a ticket update may change. */
type TicketField = 'title' | 'description' | 'status' | 'priority' | 'assigneeId' | 'productId';

/**
 * The issue tracker of docs/decisions.md#issue-tracker. Tickets live in a space; routes
 * are not under `{slug}`, so each use case checks the caller's role in the
 * ticket's space (a non-member sees a missing ticket, 404).
 */
@Injectable()
export class TicketsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly memberships: MembershipDirectory,
    private readonly users: UserDirectoryService,
    private readonly products: ProductDirectoryService,
    private readonly notifications: NotificationsService,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly queries: TicketQueries,
  ) {}

  async create(actor: Actor, dto: CreateTicketDto): Promise<TicketResponse> {
    return this.tx.run(async (em) => {
      const access = await this.access.requireRole(actor, dto.space_id, 'editor', em);
      const spaceId = access.space.id;
      const errors: FieldError[] = [];
      await this.checkAssignee(em, spaceId, dto.assignee_id, errors);
      await this.checkProduct(em, spaceId, dto.product_id, errors);
      if (errors.length) throw new ValidationFailed(errors);
      const repo = em.getRepository(Ticket);
      const ticket = await repo.save(
        repo.create({
          spaceId,
          title: dto.title,
          description: dto.description ?? null,
          priority: (dto.priority ?? 'medium') as TicketPriority,
          status: 'open',
          reporterId: actor.userId,
          assigneeId: dto.assignee_id ?? null,
          productId: dto.product_id ?? null,
        }),
      );
      await this.outbox.append(em, {
        type: 'ticket.created',
        spaceId,
        actorId: actor.userId,
        data: ticketEventData(ticket),
      });
      if (ticket.assigneeId) await this.notifyAssigned(em, actor, ticket);
      // A new ticket is linked to no incident yet.
      return this.respond(em, ticket, false);
    }, actor);
  }

  async list(actor: Actor, query: ListTicketsQuery): Promise<Page<TicketResponse>> {
    const em = this.dataSource.manager;
    const qb = em.getRepository(Ticket).createQueryBuilder('t');
    if (query.space_id) {
      const access = await this.access.requireRole(actor, query.space_id, 'viewer', this.dataSource.manager);
      qb.where('t.spaceId = :spaceId', { spaceId: access.space.id });
    } else if (!actor.isSuperadmin) {
      const spaceIds = (await this.memberships.spacesOf(actor.userId)).map((s) => s.id);
      if (!spaceIds.length) return { items: [], total: 0 };
      qb.where('t.spaceId = ANY(:spaceIds)', { spaceIds });
    }
    if (query.status) qb.andWhere('t.status = :status', { status: query.status });
    if (query.assignee_id) qb.andWhere('t.assigneeId = :assigneeId', { assigneeId: query.assignee_id });
    const [tickets, total] = await qb
      .orderBy('t.createdAt', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: await this.respondMany(em, tickets), total };
  }

  async get(actor: Actor, ticketId: string): Promise<TicketResponse> {
    const em = this.dataSource.manager;
    const { ticket } = await this.authorize(actor, ticketId, em);
    return this.respond(em, ticket);
  }

  async update(actor: Actor, ticketId: string, dto: UpdateTicketDto): Promise<TicketResponse> {
    return this.tx.run(async (em) => {
      const { ticket, access } = await this.authorize(actor, ticketId, em, true);
      const mayEdit =
        roleAtLeast(access.effectiveRole, 'editor') ||
        ticket.reporterId === actor.userId ||
        ticket.assigneeId === actor.userId;
      if (!mayEdit) throw new TicketEditForbidden('edit');
      const errors: FieldError[] = [];
      if (dto.assignee_id !== undefined)
        await this.checkAssignee(em, ticket.spaceId, dto.assignee_id, errors);
      if (dto.product_id !== undefined) await this.checkProduct(em, ticket.spaceId, dto.product_id, errors);
      if (errors.length) throw new ValidationFailed(errors);
      if (dto.status !== undefined && !canMoveTicket(ticket.status, dto.status as TicketStatus)) {
        throw new TicketMoveForbidden(ticket.status, dto.status);
      }
      const changed: string[] = [];
      const patch: Partial<Pick<Ticket, TicketField>> = {};
      const assign = <K extends TicketField>(key: K, value: Ticket[K] | undefined, field: string) => {
        if (value === undefined || ticket[key] === value) return;
        ticket[key] = value;
        patch[key] = value;
        changed.push(field);
      };
      const previousAssignee = ticket.assigneeId;
      assign('title', dto.title, 'title');
      assign('description', dto.description, 'description');
      assign('status', dto.status as TicketStatus | undefined, 'status');
      assign('priority', dto.priority as TicketPriority | undefined, 'priority');
      assign('assigneeId', dto.assignee_id, 'assignee_id');
      assign('productId', dto.product_id, 'product_id');
      if (changed.length) {
        ticket.updatedAt = new Date();
        // The changed columns only: `save` would read the locked row again to find them.
        await em.getRepository(Ticket).update(ticket.id, { ...patch, updatedAt: ticket.updatedAt });
        await this.outbox.append(em, {
          type: 'ticket.updated',
          spaceId: ticket.spaceId,
          actorId: actor.userId,
          data: { ...ticketEventData(ticket), changed },
        });
        if (ticket.assigneeId && ticket.assigneeId !== previousAssignee) {
          await this.notifyAssigned(em, actor, ticket);
        }
      }
      return this.respond(em, ticket);
    });
  }

  async delete(actor: Actor, ticketId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const { ticket, access } = await this.authorize(actor, ticketId, em, true);
      if (ticket.reporterId !== actor.userId && !roleAtLeast(access.effectiveRole, 'admin')) {
        throw new TicketEditForbidden('delete');
      }
      // Comments and incident links go with it (foreign keys cascade).
      await em.getRepository(Ticket).delete(ticket.id);
      await this.outbox.append(em, {
        type: 'ticket.deleted',
        spaceId: ticket.spaceId,
        actorId: actor.userId,
        data: { ticket_id: ticket.id, space_id: ticket.spaceId, title: ticket.title },
      });
    });
  }

  async addComment(actor: Actor, ticketId: string, dto: CreateCommentDto): Promise<TicketCommentResponse> {
    return this.tx.run(async (em) => {
      const { ticket } = await this.authorize(actor, ticketId, em);
      // Mentions reach members of the ticket's space only; anyone else is left alone.
      const mentioned = await this.users.findByEmails(em, mentionedEmails(dto.body));
      const members = await this.access.membersAmong(
        em,
        ticket.spaceId,
        mentioned.map((u) => u.id),
      );
      const mentionedIds = mentioned.filter((u) => members.has(u.id)).map((u) => u.id);
      const repo = em.getRepository(TicketComment);
      const comment = await repo.save(
        repo.create({
          ticketId: ticket.id,
          authorId: actor.userId,
          body: dto.body,
          mentionedUserIds: mentionedIds,
        }),
      );
      await this.outbox.append(em, {
        type: 'ticket.commented',
        spaceId: ticket.spaceId,
        actorId: actor.userId,
        data: {
          ticket_id: ticket.id,
          space_id: ticket.spaceId,
          comment_id: comment.id,
          author_id: actor.userId,
          mentioned_user_ids: mentionedIds,
        },
      });
      const recipients = mentionedIds.filter((id) => id !== actor.userId);
      if (recipients.length) {
        await this.notifications.notify(em, {
          recipients,
          type: 'issue_mentioned',
          title: `You were mentioned on "${ticket.title}"`,
          message: `${actor.email} mentioned you in a comment on the ticket "${ticket.title}".`,
          data: { ticket_id: ticket.id, comment_id: comment.id, space_id: ticket.spaceId },
        });
      }
      const users = await this.usersById(em, [actor.userId]);
      return toCommentResponse(comment, users);
    });
  }

  async listComments(actor: Actor, ticketId: string, page: PageQuery): Promise<Page<TicketCommentResponse>> {
    const em = this.dataSource.manager;
    const { ticket } = await this.authorize(actor, ticketId, em);
    const [comments, total] = await em
      .getRepository(TicketComment)
      .createQueryBuilder('c')
      .where('c.ticketId = :ticketId', { ticketId: ticket.id })
      .orderBy('c.createdAt', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .skip(page.skip ?? 0)
      .take(page.limit ?? 50)
      .getManyAndCount();
    const users = await this.usersById(
      em,
      comments.map((c) => c.authorId),
    );
    return { items: comments.map((c) => toCommentResponse(c, users)), total };
  }

  // For other modules (quality incidents, attachments).

  /**
   * The ticket and the caller's access to its space: any member may read.
   * A missing ticket and a ticket of a space the caller is not in are both 404.
   */
  async authorize(
    actor: Actor,
    ticketId: string,
    em: EntityManager,
    lock = false,
  ): Promise<AuthorizedTicket> {
    const ticket = await em.getRepository(Ticket).findOne({
      where: { id: ticketId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!ticket) throw new NotFound('ticket', ticketId);
    try {
      const access = await this.access.requireRole(actor, ticket.spaceId, 'viewer', em);
      return { ticket, access };
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new NotFound('ticket', ticketId);
      throw error;
    }
  }

  /** Whether a comment belongs to a ticket (attachments may name the comment they go with). */
  async hasComment(ticketId: string, commentId: string, em: EntityManager): Promise<boolean> {
    return em.getRepository(TicketComment).existsBy({ id: commentId, ticketId });
  }

  /**
   * Links a ticket to a quality incident of the same space, in the caller's
   * transaction. Linking twice is a no-op. A ticket that is missing or in
   * another space answers 422 on `ticket_id`.
   */
  async linkIncident(
    em: EntityManager,
    actorId: string | null,
    spaceId: string,
    ticketId: string,
    incidentId: string,
  ): Promise<void> {
    const ticket = await em.getRepository(Ticket).findOneBy({ id: ticketId, spaceId });
    if (!ticket) throw ValidationFailed.field('ticket_id', 'ticket_id must name a ticket of this space.');
    const inserted = await this.queries.linkIncident(em, ticketId, incidentId, actorId);
    if (inserted.length) {
      await this.outbox.append(em, {
        type: 'ticket.updated',
        spaceId,
        actorId,
        data: { ...ticketEventData(ticket), changed: ['incident_ids'] },
      });
    }
  }

  /** Tickets linked to an incident, oldest link first. */
  async linkedToIncident(incidentId: string, em: EntityManager): Promise<LinkedTicketResponse[]> {
    const rows = await this.queries.linkedToIncident(em, incidentId);
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      status: row.status,
      priority: row.priority,
      assignee_id: row.assignee_id,
      linked_at: row.linked_at.toISOString(),
    }));
  }

  // Internals.

  private async checkAssignee(
    em: EntityManager,
    spaceId: string,
    assigneeId: string | null | undefined,
    errors: FieldError[],
  ): Promise<void> {
    if (!assigneeId) return;
    const members = await this.access.membersAmong(em, spaceId, [assigneeId]);
    if (!members.has(assigneeId)) {
      errors.push({ field: 'assignee_id', message: 'assignee_id must name a member of the space.' });
    }
  }

  private async checkProduct(
    em: EntityManager,
    spaceId: string,
    productId: string | null | undefined,
    errors: FieldError[],
  ): Promise<void> {
    if (!productId) return;
    const [product] = await this.products.findByIds(em, [productId]);
    if (!product || product.space_id !== spaceId) {
      errors.push({ field: 'product_id', message: 'product_id must name a product of the space.' });
    }
  }

  private async notifyAssigned(em: EntityManager, actor: Actor, ticket: Ticket): Promise<void> {
    if (!ticket.assigneeId || ticket.assigneeId === actor.userId) return;
    await this.notifications.notify(em, {
      recipients: [ticket.assigneeId],
      type: 'issue_assigned',
      title: `Ticket assigned to you: ${ticket.title}`,
      message: `${actor.email} assigned you the ${ticket.priority} priority ticket "${ticket.title}".`,
      data: { ticket_id: ticket.id, space_id: ticket.spaceId },
    });
  }

  private async usersById(em: EntityManager, ids: string[]): Promise<Map<string, User>> {
    const users = await this.users.findByIds(em, [...new Set(ids)]);
    return new Map(users.map((u) => [u.id, u]));
  }

  private async respond(em: EntityManager, ticket: Ticket, linked = true): Promise<TicketResponse> {
    const [response] = await this.respondMany(em, [ticket], linked);
    return response;
  }

  /** `linked` false: the tickets have no incident link (skips reading them). */
  private async respondMany(em: EntityManager, tickets: Ticket[], linked = true): Promise<TicketResponse[]> {
    if (!tickets.length) return [];
    const ids = tickets.map((t) => t.id);
    const users = await this.usersById(
      em,
      tickets.flatMap((t) => (t.assigneeId ? [t.reporterId, t.assigneeId] : [t.reporterId])),
    );
    const links = linked ? await this.queries.incidentLinks(em, ids) : [];
    const byTicket = new Map<string, string[]>();
    for (const link of links)
      byTicket.set(link.ticket_id, [...(byTicket.get(link.ticket_id) ?? []), link.incident_id]);
    return tickets.map((t) => toTicketResponse(t, users, byTicket.get(t.id) ?? []));
  }
}
