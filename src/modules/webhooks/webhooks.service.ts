import { sentFields } from '../../common/validation/sent-fields';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import type { SpaceRef } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { OutboundPolicy, outboundFieldError } from '../../platform/outbound-http/outbound-policy.service';
import { EVENT_CATALOG, EventCatalogEntry } from '../../platform/outbox/event-map';
import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  DeliveryAttemptResponse,
  EventTypeCategory,
  UpdateWebhookDto,
  WebhookResponse,
  WebhookTestResponse,
} from './dto/webhook.dto';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { Webhook } from './entities/webhook.entity';
import { secretContext, WebhookDeliveriesService } from './webhook-deliveries.service';
import { generateSecret, isValidSecret } from './webhook-signature';

/** Events a space's webhooks may subscribe to. */
const SPACE_EVENTS = Object.entries(EVENT_CATALOG as Record<string, EventCatalogEntry>).filter(
  ([, entry]) => entry.scope === 'space',
);
const SUBSCRIBABLE = new Set(SPACE_EVENTS.map(([name]) => name));

export function toWebhookResponse(webhook: Webhook): WebhookResponse {
  return {
    id: webhook.id,
    space_id: webhook.spaceId,
    url: webhook.url,
    description: webhook.description,
    event_types: webhook.eventTypes,
    is_enabled: webhook.isEnabled,
    secret_set: true,
    failing_since: webhook.failingSince?.toISOString() ?? null,
    disabled_at: webhook.disabledAt?.toISOString() ?? null,
    disabled_reason: webhook.disabledReason,
    created_by: webhook.createdBy,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    @InjectRepository(WebhookAttempt) private readonly attempts: Repository<WebhookAttempt>,
    private readonly tx: TransactionRunner,
    private readonly secrets: SecretBox,
    private readonly outbound: OutboundPolicy,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly audit: AuditService,
  ) {}

  eventTypes(): EventTypeCategory[] {
    const categories = new Map<string, EventTypeCategory>();
    for (const [name, entry] of SPACE_EVENTS) {
      const category = categories.get(entry.category) ?? { category: entry.category, event_types: [] };
      category.event_types.push({ name, description: entry.description });
      categories.set(entry.category, category);
    }
    return [...categories.values()].sort((a, b) => a.category.localeCompare(b.category));
  }

  async list(space: SpaceRef, page: PageQuery): Promise<Page<WebhookResponse>> {
    const [rows, total] = await this.webhooks.findAndCount({
      where: { spaceId: space.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.skip ?? 0,
      take: page.limit ?? 50,
    });
    return { items: rows.map(toWebhookResponse), total };
  }

  async create(actor: Actor, space: SpaceRef, dto: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    await this.validate(dto);
    const generated = dto.secret === undefined;
    const secret = dto.secret ?? generateSecret();
    const id = randomUUID();
    const webhook = await this.tx.run(async (em) => {
      const saved = await em.getRepository(Webhook).save({
        id,
        spaceId: space.id,
        url: dto.url,
        description: dto.description ?? '',
        eventTypes: [...new Set(dto.event_types)],
        secretSealed: this.secrets.seal(secret, secretContext(id)),
        isEnabled: dto.is_enabled ?? true,
        createdBy: actor.userId,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      });
      await this.audit.record(em, actor, {
        action: 'webhook.created',
        resourceType: 'webhook',
        resourceId: id,
        spaceId: space.id,
        details: { url: dto.url },
      });
      return saved;
    });
    // Only a secret the server made is shown, once: the caller already holds its own (docs/decisions.md#webhook-deliveries and #secrets-at-rest).
    return generated ? { ...toWebhookResponse(webhook), secret } : toWebhookResponse(webhook);
  }

  async update(actor: Actor, space: SpaceRef, id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    await this.validate(dto);
    return this.tx.run(async (em) => {
      const webhook = await em
        .getRepository(Webhook)
        .findOne({ where: { id, spaceId: space.id }, lock: { mode: 'pessimistic_write' } });
      if (!webhook) throw new NotFound('webhook', id);
      if (dto.url !== undefined) webhook.url = dto.url;
      if (dto.event_types !== undefined) webhook.eventTypes = [...new Set(dto.event_types)];
      if (dto.description !== undefined) webhook.description = dto.description;
      if (dto.is_enabled !== undefined) {
        webhook.isEnabled = dto.is_enabled;
        if (dto.is_enabled)
          Object.assign(webhook, { disabledAt: null, disabledReason: null, failingSince: null });
      }
      await em.getRepository(Webhook).save(webhook);
      if (dto.secret !== undefined) {
        await em
          .getRepository(Webhook)
          .update(id, { secretSealed: this.secrets.seal(dto.secret, secretContext(id)) });
      }
      await this.audit.record(em, actor, {
        action: 'webhook.updated',
        resourceType: 'webhook',
        resourceId: id,
        spaceId: space.id,
        details: { changed: sentFields(dto) },
      });
      return toWebhookResponse(webhook);
    });
  }

  async delete(actor: Actor, space: SpaceRef, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const result = await em.getRepository(Webhook).delete({ id, spaceId: space.id });
      if (!result.affected) throw new NotFound('webhook', id);
      await this.audit.record(em, actor, {
        action: 'webhook.deleted',
        resourceType: 'webhook',
        resourceId: id,
        spaceId: space.id,
      });
    });
  }

  async test(space: SpaceRef, id: string): Promise<WebhookTestResponse> {
    await this.require(space, id);
    const result = await this.deliveries.sendTest(id, {
      message: 'This is a test event from Verity.',
      webhook_id: id,
      space_id: space.id,
      space_slug: space.slug,
    });
    return {
      success: result.succeeded,
      status_code: result.statusCode,
      response_time_ms: result.durationMs,
      error: result.error,
      delivery_id: result.deliveryId,
    };
  }

  async listAttempts(
    space: SpaceRef,
    id: string,
    skip: number,
    limit: number,
  ): Promise<Page<DeliveryAttemptResponse>> {
    await this.require(space, id);
    const qb = this.attempts
      .createQueryBuilder('a')
      .innerJoin(WebhookDelivery, 'd', 'd.id = a.deliveryId')
      .select([
        'a.id AS id',
        'a.delivery_id AS delivery_id',
        'd.event_type AS event_type',
        'a.attempt_number AS attempt',
        'a.status AS status',
        'a.response_code AS response_code',
        'a.duration_ms AS duration_ms',
        'a.error AS error',
        'd.status AS delivery_status',
        'a.started_at AS started_at',
        'a.finished_at AS finished_at',
      ])
      .where('a.webhookId = :id', { id });
    const [rows, total] = await Promise.all([
      qb
        .clone()
        .orderBy('a.startedAt', 'DESC')
        .addOrderBy('a.id', 'DESC')
        .offset(skip)
        .limit(limit)
        .getRawMany(),
      qb.clone().getCount(),
    ]);
    return {
      items: rows.map((r: Record<string, unknown>) => ({
        ...(r as unknown as DeliveryAttemptResponse),
        started_at: (r.started_at as Date).toISOString(),
        finished_at: (r.finished_at as Date).toISOString(),
      })),
      total,
    };
  }

  async redeliver(
    space: SpaceRef,
    id: string,
    deliveryId: string,
  ): Promise<{ delivery_id: string; status: string }> {
    await this.require(space, id);
    const delivery = await this.webhooks.manager
      .getRepository(WebhookDelivery)
      .findOneBy({ id: deliveryId, webhookId: id });
    if (!delivery) throw new NotFound('delivery', deliveryId);
    await this.deliveries.redeliver(deliveryId);
    return { delivery_id: deliveryId, status: 'pending' };
  }

  private async require(space: SpaceRef, id: string): Promise<Webhook> {
    const webhook = await this.webhooks.findOneBy({ id, spaceId: space.id });
    if (!webhook) throw new NotFound('webhook', id);
    return webhook;
  }

  private async validate(dto: CreateWebhookDto | UpdateWebhookDto): Promise<void> {
    const errors: { field: string; message: string }[] = [];
    if (dto.event_types) {
      const unknown = dto.event_types.filter((type) => !SUBSCRIBABLE.has(type));
      if (unknown.length)
        errors.push({ field: 'event_types', message: `Unknown event types: ${unknown.join(', ')}.` });
    }
    if (dto.secret !== undefined && !isValidSecret(dto.secret)) {
      errors.push({
        field: 'secret',
        message: 'secret must be whsec_ followed by base64 of at least 16 random bytes.',
      });
    }
    if (dto.url !== undefined) {
      const refused = await this.outbound.urlRefusal(dto.url, 'webhook');
      if (refused) errors.push(outboundFieldError('url', refused));
    }
    if (errors.length) throw new ValidationFailed(errors);
  }
}
