import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { NotificationsService } from '../notifications/notifications.service';
import { QualityReadService } from '../quality/quality-read.service';
import { Policy } from './entities/policy.entity';
import { PolicyEvaluator } from './policy-evaluator.service';

const EVALUATE_SPACE_JOB = 'policies.evaluate-space';

/**
 * Keeps evaluations current without anyone pressing a button: a change to a
 * product, its roles or metadata values, or to its open incidents re-evaluates
 * the space's enabled policies for that product, in the transaction that
 * consumes the event; a renamed or deleted metadata value re-evaluates the
 * whole space in the background. `policy.violated` notifies the product's owners.
 */
@Injectable()
export class PolicyAutomation implements OnModuleInit {
  constructor(
    private readonly dispatcher: OutboxDispatcher,
    private readonly jobs: JobRunner,
    private readonly tx: TransactionRunner,
    private readonly evaluator: PolicyEvaluator,
    private readonly quality: QualityReadService,
    private readonly products: ProductDirectoryService,
    private readonly notifications: NotificationsService,
  ) {}

  onModuleInit(): void {
    // A batch of product changes is one evaluation per space, of all its changed products at once.
    this.dispatcher.onBatch(
      ['product.created', 'product.updated', 'alert.created'],
      'policies.reevaluate-products',
      async (events, em) => {
        const bySpace = new Map<string, Set<string>>();
        for (const { data } of events) {
          let ids = bySpace.get(data.space_id);
          if (!ids) bySpace.set(data.space_id, (ids = new Set()));
          ids.add(data.product_id);
        }
        for (const [spaceId, ids] of bySpace) await this.reevaluate(em, spaceId, [...ids]);
      },
    );
    this.dispatcher.on('incident.resolved', 'policies.reevaluate-incident-products', async (event, em) =>
      this.reevaluate(
        em,
        event.data.space_id,
        await this.quality.productIdsOfIncident(event.data.incident_id, em),
      ),
    );
    this.dispatcher.on('incident.updated', 'policies.reevaluate-incident-products', async (event, em) => {
      if (!event.data.changed.includes('status')) return;
      await this.reevaluate(
        em,
        event.data.space_id,
        await this.quality.productIdsOfIncident(event.data.incident_id, em),
      );
    });
    this.dispatcher.on('metadata_config.changed', 'policies.reevaluate-space', async (event, em) => {
      if (event.data.action !== 'updated' && event.data.action !== 'deleted') return;
      await this.jobs.enqueue(
        em,
        EVALUATE_SPACE_JOB,
        { space_id: event.data.space_id },
        {
          singletonKey: `policies-evaluate-space:${event.data.space_id}:${event.id}`,
        },
      );
    });
    this.dispatcher.on('policy.violated', 'policies.notify-owners', async (event, em) => {
      const [roles] = await this.products.ownersAndStewardsOf(em, [event.data.product_id]);
      if (!roles?.ownerIds.length) return;
      await this.notifications.notify(em, {
        recipients: roles.ownerIds,
        type: 'contract_violation',
        title: `${event.data.product_name} violates "${event.data.policy_name}"`,
        message: `${event.data.product_name} no longer complies with the ${event.data.severity} policy "${event.data.policy_name}". ${event.data.message}`,
        data: {
          policy_id: event.data.policy_id,
          product_id: event.data.product_id,
          space_id: event.data.space_id,
        },
      });
    });
    this.jobs.register(
      EVALUATE_SPACE_JOB,
      (payload) =>
        this.tx.run(async (em) => {
          const policies = await this.enabledPolicies(em, payload.space_id, true);
          if (policies.length) await this.evaluator.runSpace(em, payload.space_id, policies);
        }),
      { maxAttempts: 5 },
    );
  }

  private async reevaluate(em: EntityManager, spaceId: string, productIds: string[]): Promise<void> {
    if (!productIds.length) return;
    const policies = await this.enabledPolicies(em, spaceId);
    await this.evaluator.runProducts(em, spaceId, productIds, policies);
  }

  /** With `lock`, locked FOR UPDATE in id order, as evaluate-all locks them (PolicyEvaluator.runSpace). */
  private enabledPolicies(em: EntityManager, spaceId: string, lock = false): Promise<Policy[]> {
    const query = em
      .getRepository(Policy)
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId AND p.isEnabled AND NOT p.isArchived', { spaceId });
    return (lock ? query.orderBy('p.id').setLock('pessimistic_write') : query).getMany();
  }
}
