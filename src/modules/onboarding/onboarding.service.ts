import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { MembershipDirectory } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { QualityReadService } from '../quality/quality-read.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { OnboardingResponse, UpdateOnboardingDto } from './dto/onboarding.dto';
import { OnboardingState } from './entities/onboarding-state.entity';
import { CHECKLIST, ChecklistKey } from './onboarding-checklist';

/** The onboarding checklist, derived from real state, and the guided-tour state the user stored. */
@Injectable()
export class OnboardingService {
  constructor(
    @InjectRepository(OnboardingState) private readonly states: Repository<OnboardingState>,
    private readonly tx: TransactionRunner,
    private readonly users: UserDirectoryService,
    private readonly memberships: MembershipDirectory,
    private readonly products: ProductDirectoryService,
    private readonly quality: QualityReadService,
  ) {}

  async get(actor: Actor): Promise<OnboardingResponse> {
    return this.answer(actor.userId, await this.states.findOneBy({ userId: actor.userId }));
  }

  async update(actor: Actor, dto: UpdateOnboardingDto): Promise<OnboardingResponse> {
    const state = await this.tx.run(async (em) => {
      const repo = em.getRepository(OnboardingState);
      await repo
        .createQueryBuilder()
        .insert()
        .values({ userId: actor.userId, dismissedTours: [], dismissed: false })
        .orIgnore()
        .execute();
      const changes: { dismissedTours?: string[]; dismissed?: boolean } = {};
      if (dto.dismissed_tours !== undefined) changes.dismissedTours = dto.dismissed_tours;
      if (dto.dismissed !== undefined) changes.dismissed = dto.dismissed;
      if (Object.keys(changes).length) await repo.update(actor.userId, changes);
      return repo.findOneByOrFail({ userId: actor.userId });
    });
    return this.answer(actor.userId, state);
  }

  /** Each item asks the module that owns the state, the independent reads in parallel. */
  private async progress(userId: string): Promise<Record<ChecklistKey, boolean>> {
    // No transaction: the reads run on the DataSource's manager.
    const em = this.states.manager;
    const [user, spaces, firstProduct] = await Promise.all([
      this.users.findById(em, userId),
      this.memberships.spacesOf(userId),
      this.products.isInvolvedInAnyProduct(em, userId),
    ]);
    return {
      profile_completed: !!user?.firstName && !!user.lastName,
      first_space: spaces.length > 0,
      first_product: firstProduct,
      first_quality_check: await this.quality.anyCheckIn(spaces.map((space) => space.id)),
      notification_preferences: Object.keys(user?.preferences?.notifications ?? {}).length > 0,
    };
  }

  private async answer(userId: string, state: OnboardingState | null): Promise<OnboardingResponse> {
    const progress = await this.progress(userId);
    const items = CHECKLIST.map((item) => ({ key: item.key, title: item.title, done: progress[item.key] }));
    const done = items.filter((item) => item.done).length;
    return {
      items,
      completed_count: done,
      total: items.length,
      completed: done === items.length,
      dismissed: state?.dismissed ?? false,
      dismissed_tours: state?.dismissedTours ?? [],
    };
  }
}
