import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import { API_PREFIX } from '../../common/http/legacy-path.middleware';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { generateSecret, isValidSecret } from '../webhooks/webhook-signature';
import { LearningIntegrationResponse, UpdateLearningIntegrationDto } from './dto/learning.dto';
import { LearningIntegration } from './entities/learning-integration.entity';

const ROW_ID = 'default';
/** Bound into the sealed secret, so a value copied from another column does not open. */
const SEAL_CONTEXT = 'learning_integrations.secret';
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export interface LearningSigningSettings {
  secret: string;
  isEnabled: boolean;
}

/** The superadmin's settings of the inbound learning-system webhook. */
@Injectable()
export class LearningIntegrationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly secrets: SecretBox,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(): Promise<LearningIntegrationResponse> {
    const row = await this.dataSource.getRepository(LearningIntegration).findOneBy({ id: ROW_ID });
    return this.toResponse(row, null);
  }

  async update(actor: Actor, dto: UpdateLearningIntegrationDto): Promise<LearningIntegrationResponse> {
    if (dto.secret !== undefined && dto.regenerate_secret) {
      throw ValidationFailed.field('secret', 'Give either secret or regenerate_secret, not both.');
    }
    if (dto.secret !== undefined && !isValidSecret(dto.secret)) {
      throw ValidationFailed.field(
        'secret',
        'secret must be whsec_ followed by base64 of at least 16 bytes.',
      );
    }
    return this.tx.run(async (em) => {
      const repo = em.getRepository(LearningIntegration);
      const existing = await repo.findOne({ where: { id: ROW_ID }, lock: { mode: 'pessimistic_write' } });
      const generated =
        dto.regenerate_secret || (!existing && dto.secret === undefined) ? generateSecret() : null;
      const secret = generated ?? dto.secret;
      const row = existing ?? repo.create({ id: ROW_ID, isEnabled: true });
      if (secret !== undefined) row.secretSealed = this.secrets.seal(secret, SEAL_CONTEXT);
      if (dto.is_enabled !== undefined) row.isEnabled = dto.is_enabled;
      row.updatedBy = actor.userId;
      row.updatedAt = new Date();
      await repo.save(row);
      await this.audit.record(em, actor, {
        action: existing ? 'integration.learning.updated' : 'integration.learning.created',
        resourceType: 'integration',
        resourceId: null,
        details: { secret_changed: secret !== undefined, is_enabled: row.isEnabled },
      });
      return this.toResponse(row, generated);
    });
  }

  async delete(actor: Actor): Promise<void> {
    await this.tx.run(async (em) => {
      const result = await em.getRepository(LearningIntegration).delete({ id: ROW_ID });
      if (result.affected) {
        await this.audit.record(em, actor, {
          action: 'integration.learning.deleted',
          resourceType: 'integration',
          resourceId: null,
        });
      }
    });
  }

  /** The opened secret for verifying a delivery; null when none is configured. */
  async signingSettings(em: EntityManager): Promise<LearningSigningSettings | null> {
    const row = await em
      .getRepository(LearningIntegration)
      .createQueryBuilder('l')
      .addSelect('l.secretSealed')
      .where('l.id = :id', { id: ROW_ID })
      .getOne();
    if (!row) return null;
    return { secret: this.secrets.open(row.secretSealed, SEAL_CONTEXT), isEnabled: row.isEnabled };
  }

  private toResponse(row: LearningIntegration | null, generated: string | null): LearningIntegrationResponse {
    return {
      secret_set: !!row,
      is_enabled: row?.isEnabled ?? false,
      endpoint_url: `${this.config.publicBaseUrl}/${API_PREFIX}/integrations/learning/ai-literacy`,
      timestamp_tolerance_seconds: TIMESTAMP_TOLERANCE_SECONDS,
      updated_at: row?.updatedAt.toISOString() ?? null,
      secret: generated,
    };
  }
}
