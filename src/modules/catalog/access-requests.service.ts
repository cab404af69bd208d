import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import {
  Conflict,
  Forbidden,
  InvalidTransition,
  NotFound,
  ValidationFailed,
} from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { toAccessRequestResponse } from './catalog.mapper';
import {
  AccessRequestResponse,
  ApproveAccessRequestDto,
  CreateAccessRequestDto,
  ListAccessRequestsQuery,
  RejectAccessRequestDto,
} from './dto/access-request.dto';
import { AccessLevel, AccessRequest } from './entities/access-request.entity';
import { ProductRole } from './entities/product-role.entity';
import { Product } from './entities/product.entity';

@Injectable()
export class AccessRequestsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UserDirectoryService,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
  ) {}

  async submit(
    actor: Actor,
    access: SpaceAccess,
    productId: string,
    dto: CreateAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    const spaceId = access.space.id;
    const now = new Date();
    if (dto.requested_until && dto.requested_until <= now) {
      throw ValidationFailed.field('requested_until', 'requested_until must be in the future.');
    }
    return this.tx.run(async (em) => {
      const product = await this.requireProduct(em, spaceId, productId, true);
      const repo = em.getRepository(AccessRequest);
      if (await repo.existsBy({ productId, requesterId: actor.userId, status: 'pending' })) {
        throw new Conflict(
          'You already have a pending access request for this product.',
          'access_request_pending',
        );
      }
      const request = await repo.save(
        repo.create({
          spaceId,
          productId,
          requesterId: actor.userId,
          accessLevel: dto.access_level as AccessLevel,
          justification: dto.justification,
          requestedUntil: dto.requested_until ?? null,
          status: 'pending',
        }),
      );
      await this.outbox.append(em, {
        type: 'access_request.submitted',
        spaceId,
        actorId: actor.userId,
        data: eventData(request, product.name),
      });
      return this.respond(em, request, product.name, now);
    });
  }

  async list(
    actor: Actor,
    access: SpaceAccess,
    query: ListAccessRequestsQuery,
  ): Promise<Page<AccessRequestResponse>> {
    const em = this.dataSource.manager;
    const now = new Date();
    const qb = em
      .getRepository(AccessRequest)
      .createQueryBuilder('ar')
      .innerJoin('ar.product', 'p')
      .addSelect(['p.id', 'p.name'])
      .where('ar.spaceId = :spaceId', { spaceId: access.space.id });
    // Space admins see every request; other members their own and those on products they own or steward.
    if (access.effectiveRole !== 'admin') {
      qb.andWhere(
        new Brackets((w) =>
          w
            .where('ar.requesterId = :me')
            .orWhere('ar.productId IN (SELECT r.product_id FROM product_roles r WHERE r.user_id = :me)'),
        ),
        { me: actor.userId },
      );
    }
    if (query.product_id) qb.andWhere('ar.productId = :productId', { productId: query.product_id });
    switch (query.status) {
      case 'pending':
      case 'rejected':
        qb.andWhere('ar.status = :status', { status: query.status });
        break;
      case 'approved':
        qb.andWhere(`ar.status = 'approved' AND (ar.expiresAt IS NULL OR ar.expiresAt > :now)`, { now });
        break;
      case 'expired':
        qb.andWhere(`ar.status = 'approved' AND ar.expiresAt <= :now`, { now });
        break;
    }
    const [requests, total] = await qb
      .orderBy('ar.createdAt', 'DESC')
      .addOrderBy('ar.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    const users = await this.usersOf(em, requests);
    return {
      items: requests.map((r) => toAccessRequestResponse(r, r.product?.name ?? '', users, now)),
      total,
    };
  }

  async approve(
    actor: Actor,
    access: SpaceAccess,
    requestId: string,
    dto: ApproveAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    const now = new Date();
    if (dto.expires_at && dto.expires_at <= now) {
      throw ValidationFailed.field('expires_at', 'expires_at must be in the future.');
    }
    return this.tx.run(async (em) => {
      const { request, product } = await this.decidable(em, actor, access, requestId);
      // Without an explicit end, the grant lasts as long as asked for (no end when none was asked for);
      // a requested end that has passed meanwhile needs an explicit one rather than an open-ended grant.
      if (dto.expires_at === undefined && request.requestedUntil && request.requestedUntil <= now) {
        throw ValidationFailed.field('expires_at', 'The requested end has passed: give expires_at.');
      }
      request.status = 'approved';
      request.expiresAt = dto.expires_at !== undefined ? dto.expires_at : request.requestedUntil;
      request.decidedBy = actor.userId;
      request.decidedAt = now;
      await em.getRepository(AccessRequest).save(request);
      await this.outbox.append(em, {
        type: 'access_request.approved',
        spaceId: request.spaceId,
        actorId: actor.userId,
        data: {
          ...eventData(request, product.name),
          expires_at: request.expiresAt?.toISOString() ?? null,
          decided_by: actor.userId,
        },
      });
      await this.audit.record(em, actor, {
        action: 'access_request.approved',
        resourceType: 'access_request',
        resourceId: request.id,
        spaceId: request.spaceId,
        details: {
          product_id: request.productId,
          requester_id: request.requesterId,
          access_level: request.accessLevel,
        },
      });
      return this.respond(em, request, product.name, now);
    });
  }

  async reject(
    actor: Actor,
    access: SpaceAccess,
    requestId: string,
    dto: RejectAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    const now = new Date();
    return this.tx.run(async (em) => {
      const { request, product } = await this.decidable(em, actor, access, requestId);
      request.status = 'rejected';
      request.rejectionReason = dto.reason;
      request.decidedBy = actor.userId;
      request.decidedAt = now;
      await em.getRepository(AccessRequest).save(request);
      await this.outbox.append(em, {
        type: 'access_request.rejected',
        spaceId: request.spaceId,
        actorId: actor.userId,
        data: { ...eventData(request, product.name), reason: dto.reason, decided_by: actor.userId },
      });
      return this.respond(em, request, product.name, now);
    });
  }

  /** Loads a pending request the caller may decide: a space admin, or an owner or steward of its product. */
  private async decidable(
    em: EntityManager,
    actor: Actor,
    access: SpaceAccess,
    requestId: string,
  ): Promise<{ request: AccessRequest; product: Product }> {
    const request = await em.getRepository(AccessRequest).findOne({
      where: { id: requestId, spaceId: access.space.id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!request) throw new NotFound('access request', requestId);
    const product = await this.requireProduct(em, access.space.id, request.productId, false);
    if (access.effectiveRole !== 'admin') {
      const governs = await em
        .getRepository(ProductRole)
        .existsBy({ productId: product.id, userId: actor.userId });
      if (!governs) {
        throw new Forbidden(
          "Only the product's owners or stewards, or a Space Admin, may decide access requests.",
          'access_decision_forbidden',
        );
      }
    }
    if (request.status !== 'pending') {
      throw new InvalidTransition(
        `The access request is already ${request.status}; only pending requests can be decided.`,
      );
    }
    return { request, product };
  }

  private async requireProduct(
    em: EntityManager,
    spaceId: string,
    productId: string,
    lock: boolean,
  ): Promise<Product> {
    const product = await em.getRepository(Product).findOne({
      select: { id: true, name: true, spaceId: true },
      where: { id: productId, spaceId },
      lock: lock ? { mode: 'pessimistic_read' } : undefined,
    });
    if (!product) throw new NotFound('product', productId);
    return product;
  }

  private async usersOf(em: EntityManager, requests: AccessRequest[]) {
    const ids = new Set<string>();
    for (const r of requests) {
      ids.add(r.requesterId);
      if (r.decidedBy) ids.add(r.decidedBy);
    }
    return new Map((await this.users.findByIds(em, [...ids])).map((u) => [u.id, u]));
  }

  private async respond(em: EntityManager, request: AccessRequest, productName: string, now: Date) {
    return toAccessRequestResponse(request, productName, await this.usersOf(em, [request]), now);
  }
}

function eventData(request: AccessRequest, productName: string) {
  return {
    request_id: request.id,
    space_id: request.spaceId,
    product_id: request.productId,
    product_name: productName,
    requester_id: request.requesterId,
    access_level: request.accessLevel,
  };
}
