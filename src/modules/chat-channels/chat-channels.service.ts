import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import type { SpaceRef } from '../../common/permissions/space-access.port';
import { sentFields } from '../../common/validation/sent-fields';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { Clock } from '../../platform/clock/clock.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { isChatPlatformHost } from '../../platform/outbound-http/chat-hosts';
import { OutboundPolicy, outboundFieldError } from '../../platform/outbound-http/outbound-policy.service';
import { isRefusal } from '../../platform/outbound-http/outbound-url-policy';
import { ChatDeliveriesService, platformName, urlContext } from './chat-deliveries.service';
import type { ChatNotice } from './chat-notice';
import {
  ChatChannelResponse,
  ChatChannelTestResponse,
  CreateChatChannelDto,
  UpdateChatChannelDto,
} from './dto/chat-channel.dto';
import { ChatChannel, ChatKind } from './entities/chat-channel.entity';

export function toChatChannelResponse(channel: ChatChannel): ChatChannelResponse {
  return {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    url_set: true,
    url_host: channel.urlHost,
    event_types: channel.eventTypes,
    min_severity: channel.minSeverity,
    is_enabled: channel.isEnabled,
    failing_since: channel.failingSince?.toISOString() ?? null,
    created_at: channel.createdAt.toISOString(),
  };
}

@Injectable()
export class ChatChannelsService {
  constructor(
    @InjectRepository(ChatChannel) private readonly channels: Repository<ChatChannel>,
    private readonly tx: TransactionRunner,
    private readonly secrets: SecretBox,
    private readonly outbound: OutboundPolicy,
    private readonly deliveries: ChatDeliveriesService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async list(space: SpaceRef, page: PageQuery): Promise<Page<ChatChannelResponse>> {
    const [rows, total] = await this.channels.findAndCount({
      where: { spaceId: space.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.skip ?? 0,
      take: page.limit ?? 50,
    });
    return { items: rows.map(toChatChannelResponse), total };
  }

  async get(space: SpaceRef, id: string): Promise<ChatChannelResponse> {
    return toChatChannelResponse(await this.require(space, id));
  }

  async create(actor: Actor, space: SpaceRef, dto: CreateChatChannelDto): Promise<ChatChannelResponse> {
    const kind = dto.kind as ChatKind;
    const host = await this.checkUrl(dto.url, kind);
    const id = randomUUID();
    const channel = await this.tx.run(async (em) => {
      const saved = await em.getRepository(ChatChannel).save({
        id,
        spaceId: space.id,
        name: dto.name,
        kind,
        urlSealed: this.secrets.seal(dto.url, urlContext(id)),
        urlHost: host,
        eventTypes: [...new Set(dto.event_types)],
        minSeverity: dto.min_severity ?? 'low',
        isEnabled: dto.is_enabled ?? true,
        failingSince: null,
        consecutiveFailures: 0,
        createdBy: actor.userId,
      });
      await this.audit.record(em, actor, {
        action: 'chat_channel.created',
        resourceType: 'chat_channel',
        resourceId: id,
        spaceId: space.id,
        details: { kind, url_host: host },
      });
      return saved;
    });
    return toChatChannelResponse(channel);
  }

  async update(
    actor: Actor,
    space: SpaceRef,
    id: string,
    dto: UpdateChatChannelDto,
  ): Promise<ChatChannelResponse> {
    const current = await this.require(space, id);
    const host = dto.url !== undefined ? await this.checkUrl(dto.url, current.kind) : null;
    return this.tx.run(async (em) => {
      const repo = em.getRepository(ChatChannel);
      const channel = await repo.findOne({
        where: { id, spaceId: space.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!channel) throw new NotFound('chat_channel', id);
      if (dto.name !== undefined) channel.name = dto.name;
      if (dto.event_types !== undefined) channel.eventTypes = [...new Set(dto.event_types)];
      if (dto.min_severity !== undefined) channel.minSeverity = dto.min_severity;
      if (dto.is_enabled !== undefined) {
        channel.isEnabled = dto.is_enabled;
        if (dto.is_enabled) Object.assign(channel, { failingSince: null, consecutiveFailures: 0 });
      }
      if (dto.url !== undefined && host !== null) channel.urlHost = host;
      await repo.save(channel);
      if (dto.url !== undefined)
        await repo.update(id, { urlSealed: this.secrets.seal(dto.url, urlContext(id)) });
      await this.audit.record(em, actor, {
        action: 'chat_channel.updated',
        resourceType: 'chat_channel',
        resourceId: id,
        spaceId: space.id,
        details: { changed: sentFields(dto) },
      });
      return toChatChannelResponse(channel);
    });
  }

  async delete(actor: Actor, space: SpaceRef, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const result = await em.getRepository(ChatChannel).delete({ id, spaceId: space.id });
      if (!result.affected) throw new NotFound('chat_channel', id);
      await this.audit.record(em, actor, {
        action: 'chat_channel.deleted',
        resourceType: 'chat_channel',
        resourceId: id,
        spaceId: space.id,
      });
    });
  }

  /** Posts a test message now, once (no retries, not counted as a failure), even to a disabled channel. */
  async test(space: SpaceRef, id: string): Promise<ChatChannelTestResponse> {
    await this.require(space, id);
    const channel = await this.channels
      .createQueryBuilder('c')
      .addSelect('c.urlSealed')
      .where('c.id = :id', { id })
      .getOneOrFail();
    const notice: ChatNotice = {
      event_type: 'alert.raised',
      title: 'Test message from Verity',
      severity: null,
      space_name: space.name,
      summary: `This ${platformName(channel.kind)} channel "${channel.name}" will receive the events it subscribes to.`,
      products: [],
      link: this.deliveries.link(`spaces/{slug}/chat-channels/${id}`, space.slug),
      folded: 0,
      occurred_at: new Date(this.clock.now()).toISOString(),
    };
    const result = await this.deliveries.send(channel, notice, randomUUID());
    return { success: result.success, status_code: result.statusCode, error: result.error };
  }

  private async require(space: SpaceRef, id: string): Promise<ChatChannel> {
    const channel = await this.channels.findOneBy({ id, spaceId: space.id });
    if (!channel) throw new NotFound('chat_channel', id);
    return channel;
  }

  /** The outbound policy for chat, then the kind's own hosts; answers the URL's host. */
  private async checkUrl(url: string, kind: ChatKind): Promise<string> {
    const refused = await this.outbound.urlRefusal(url, 'chat');
    if (refused) throw new ValidationFailed([outboundFieldError('url', refused)]);
    const checked = this.outbound.checkUrlText(url, 'chat');
    if (isRefusal(checked)) throw new ValidationFailed([outboundFieldError('url', checked)]);
    if (!checked.rules.allowPrivate && !isChatPlatformHost(checked.host, kind)) {
      throw new ValidationFailed([
        outboundFieldError('url', {
          reason: 'host_not_allowed',
          message: `${checked.host} is not a ${platformName(kind)} webhook host`,
        }),
      ]);
    }
    return checked.host;
  }
}
