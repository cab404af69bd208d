import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { TransactionRunner } from '../../database/transaction-runner';
import { OnboardingResponse, UpdateOnboardingDto } from './dto/onboarding.dto';
import { OnboardingState } from './entities/onboarding-state.entity';
import { CHECKLIST, ChecklistKey } from './onboarding-checklist';

// The checklist reads other modules' tables (never writes them) in one round trip: each item is
// an EXISTS over an index (memberships by user, product roles by user, products by creator,
// checks by space), cheaper than one exported-service call per item on every read.
const PROGRESS_SQL = `SELECT
    (u.first_name <> '' AND u.last_name <> '') AS profile_completed,
    EXISTS (SELECT 1 FROM space_memberships m WHERE m.user_id = u.id) AS first_space,
    (EXISTS (SELECT 1 FROM product_roles r WHERE r.user_id = u.id)
      OR EXISTS (SELECT 1 FROM products p WHERE p.created_by = u.id)) AS first_product,
    EXISTS (SELECT 1 FROM space_memberships m JOIN quality_checks q ON q.space_id = m.space_id
             WHERE m.user_id = u.id) AS first_quality_check,
    (COALESCE(u.preferences -> 'notifications', '{}'::jsonb) <> '{}'::jsonb) AS notification_preferences,
    o.dismissed, o.dismissed_tours
  FROM users u LEFT JOIN onboarding_states o ON o.user_id = u.id
 WHERE u.id = $1`;

type ProgressRow = Record<ChecklistKey, boolean> & {
  dismissed: boolean | null;
  dismissed_tours: string[] | null;
};

/** The onboarding checklist, derived from real state, and the guided-tour state the user stored. */
@Injectable()
export class OnboardingService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
  ) {}

  async get(actor: Actor): Promise<OnboardingResponse> {
    return this.read(this.dataSource.manager, actor.userId);
  }

  async update(actor: Actor, dto: UpdateOnboardingDto): Promise<OnboardingResponse> {
    return this.tx.run(async (em) => {
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
      return this.read(em, actor.userId);
    });
  }

  private async read(em: EntityManager, userId: string): Promise<OnboardingResponse> {
    const [row] = (await em.query(PROGRESS_SQL, [userId])) as ProgressRow[];
    const items = CHECKLIST.map((item) => ({ key: item.key, title: item.title, done: !!row?.[item.key] }));
    const done = items.filter((item) => item.done).length;
    return {
      items,
      completed_count: done,
      total: items.length,
      completed: done === items.length,
      dismissed: row?.dismissed ?? false,
      dismissed_tours: row?.dismissed_tours ?? [],
    };
  }
}
