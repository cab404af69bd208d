import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { AlertIngestion, NewAlert } from './alert-ingestion.service';
import { CheckRunnerService } from './check-runner.service';
import { Alert } from './entities/alert.entity';
import type { RunStatus, Severity } from './entities/check.entity';
import { Check } from './entities/check.entity';
import { alertEventData } from './quality.mapper';
import { QualityQueries } from './quality.queries';

export interface PushedCheckResult {
  spaceId: string;
  productId: string;
  /** The check's name: a pushed (`custom`) check of this name on the product is created when none exists. */
  checkName: string;
  /** Description and severity of a check created here. */
  description: string;
  severity: Severity;
  passed: boolean;
  message: string;
  actorId: string | null;
}

/**
 * What other modules may raise in quality, in their own transaction and
 * after their own access decision: alerts (correlated like any other),
 * resolutions of alerts they raised, and pushed check results. Signals from
 * outside (OpenLineage run health) use it; quality's own routes do not.
 */
@Injectable()
export class QualitySignalsService {
  constructor(
    private readonly ingestion: AlertIngestion,
    private readonly runner: CheckRunnerService,
    private readonly outbox: OutboxService,
    private readonly queries: QualityQueries,
  ) {}

  /** Opens an alert and correlates it into an incident, as `POST /spaces/{slug}/alerts` does. */
  async openAlert(em: EntityManager, input: NewAlert): Promise<{ alertId: string; incidentId: string }> {
    const { alert, incident } = await this.ingestion.open(em, input);
    return { alertId: alert.id, incidentId: incident.id };
  }

  /**
   * Resolves the alerts that are not resolved yet, as `POST .../alerts/{id}/resolve`
   * does (each emits `alert.resolved`; incidents stay as they are). Answers the ids resolved.
   */
  async resolveAlerts(em: EntityManager, alertIds: string[], actorId: string | null): Promise<string[]> {
    if (!alertIds.length) return [];
    const repo = em.getRepository(Alert);
    const alerts = await repo
      .createQueryBuilder('a')
      .setLock('pessimistic_write')
      .where('a.id IN (:...ids)', { ids: alertIds })
      .andWhere("a.status <> 'resolved'")
      .orderBy('a.id')
      .getMany();
    const now = new Date();
    for (const alert of alerts) {
      alert.status = 'resolved';
      alert.resolvedAt = now;
      alert.resolvedBy = actorId;
      alert.updatedAt = now;
      await repo.update(alert.id, {
        status: 'resolved',
        resolvedAt: now,
        resolvedBy: actorId,
        updatedAt: now,
      });
      await this.outbox.append(em, {
        type: 'alert.resolved',
        spaceId: alert.spaceId,
        actorId,
        data: alertEventData(alert),
      });
    }
    return alerts.map((a) => a.id);
  }

  /**
   * Records a result on the product's pushed check of that name (created
   * `custom`, enabled and unscheduled when missing), as
   * `POST /quality/checks/{id}/results` does: a failed result opens an alert.
   */
  async pushCheckResult(
    em: EntityManager,
    input: PushedCheckResult,
  ): Promise<{ checkId: string; checkRunId: string; status: RunStatus; alertId: string | null }> {
    const checks = em.getRepository(Check);
    const find = () =>
      checks.findOneBy({ productId: input.productId, name: input.checkName, checkType: 'custom' });
    // The lock is taken only to create: a second look under it sees a check created meanwhile.
    const check =
      (await find()) ??
      (await this.queries.lockPushedCheckName(em, input.productId, input.checkName).then(find)) ??
      (await checks.save(
        checks.create({
          spaceId: input.spaceId,
          productId: input.productId,
          connectorId: null,
          name: input.checkName,
          description: input.description,
          checkType: 'custom',
          severity: input.severity,
          config: {},
          scheduleCron: null,
          isEnabled: true,
          nextRunAt: null,
          createdBy: input.actorId,
        }),
      ));
    const run = await this.runner.recordPushed(em, check, input.passed, input.message, input.actorId);
    return { checkId: check.id, checkRunId: run.id, status: run.status, alertId: run.alertId };
  }
}
