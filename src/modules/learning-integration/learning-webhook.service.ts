import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ValidationFailed } from '../../common/errors/domain-error';
import { createValidationPipe } from '../../common/validation/validation.pipe';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { AiLiteracyStatus } from '../users/entities/user.entity';
import { UserDirectoryService } from '../users/user-directory.service';
import { verifySignature } from '../webhooks/webhook-signature';
import { AiLiteracyEventDto, AiLiteracyReceiptResponse } from './dto/learning.dto';
import { InboundWebhookMessage } from './entities/inbound-webhook-message.entity';
import { LearningIntegrationQueries } from './learning-integration.queries';
import { LearningIntegrationService, TIMESTAMP_TOLERANCE_SECONDS } from './learning-integration.service';
import { InvalidSignature } from './learning.errors';

const SOURCE = 'learning.ai_literacy';
/** Senders retry a message under the same id for days (with fresh timestamps), so ids are remembered for a week. */
const REMEMBER_DAYS = 7;
const PURGE_JOB = 'integrations.inbound_messages.purge';

export interface InboundDelivery {
  headers: { id?: string; timestamp?: string; signature?: string };
  /** The exact bytes received, which the signature covers. */
  rawBody: Buffer | undefined;
  /** The body as the JSON parser read it. */
  body: unknown;
  ip: string | null;
}

/** Applies signed AI-literacy deliveries from the learning system to users. */
@Injectable()
export class LearningWebhookService implements OnModuleInit {
  private readonly validation = createValidationPipe();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly settings: LearningIntegrationService,
    private readonly users: UserDirectoryService,
    private readonly jobs: JobRunner,
    private readonly queries: LearningIntegrationQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(PURGE_JOB, () => this.purge());
    this.jobs.registerCron(PURGE_JOB, '17 * * * *', PURGE_JOB);
  }

  async receive(delivery: InboundDelivery): Promise<AiLiteracyReceiptResponse> {
    const settings = await this.settings.signingSettings(this.dataSource.manager);
    if (!settings?.isEnabled) {
      throw new InvalidSignature(
        'The learning integration has no signing secret configured, or is disabled.',
      );
    }
    const check = verifySignature(
      settings.secret,
      delivery.headers,
      delivery.rawBody ?? Buffer.alloc(0),
      new Date(),
      TIMESTAMP_TOLERANCE_SECONDS,
    );
    if (!check.valid) throw new InvalidSignature(check.reason);
    // Validated only once the sender is known: strangers learn nothing about the payload's rules.
    const event = (await this.validation.transform(delivery.body, {
      type: 'body',
      metatype: AiLiteracyEventDto,
    })) as AiLiteracyEventDto;
    const { data } = event;
    if (!data.user_id === !data.email) {
      throw ValidationFailed.field('data', 'data must name the user by exactly one of user_id or email.');
    }
    const messageId = check.messageId;
    return this.tx.run(async (em) => {
      const inserted = await em
        .createQueryBuilder()
        .insert()
        .into(InboundWebhookMessage)
        .values({
          source: SOURCE,
          messageId,
          expiresAt: new Date(Date.now() + REMEMBER_DAYS * 86_400_000),
        })
        .orIgnore()
        .returning(['messageId'])
        .execute();
      if (!inserted.raw.length) {
        const seen = await em
          .getRepository(InboundWebhookMessage)
          .findOneByOrFail({ source: SOURCE, messageId });
        return {
          status: 'duplicate',
          message_id: messageId,
          user_id: String(seen.outcome.user_id),
          changed: [],
        };
      }
      const applied = await this.users.applyAiLiteracy(
        em,
        { userId: data.user_id, email: data.email },
        {
          status: data.status as AiLiteracyStatus,
          program: data.program,
          completionDate: data.completion_date,
          nextRenewal: data.next_renewal,
        },
        { source: 'learning_webhook', message_id: messageId, event_type: event.type, ip: delivery.ip },
      );
      // The transaction rolls back, message id included, so a corrected retry still applies.
      if (!applied) {
        const field = data.user_id ? 'data.user_id' : 'data.email';
        throw ValidationFailed.field(field, `${field} names no user of this service.`);
      }
      await em
        .getRepository(InboundWebhookMessage)
        .update({ source: SOURCE, messageId }, { outcome: jsonValue({ user_id: applied.user.id }) });
      return { status: 'applied', message_id: messageId, user_id: applied.user.id, changed: applied.changed };
    });
  }

  async purge(): Promise<void> {
    await this.queries.purgeExpiredMessages(this.dataSource.manager);
  }
}
