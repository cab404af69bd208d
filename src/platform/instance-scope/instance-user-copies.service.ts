import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { InstanceScopeQueries } from './instance-scope.queries';

/** How long a copy counts as fresh in this process before the next request of its user refreshes it. */
const FRESH_MS = 5 * 60 * 1000;

/**
 * Accounts live in the control plane, but an instance database carries the
 * full schema, whose foreign keys (space memberships, owners, comments,
 * audit actors...) reference `users`. So each instance database keeps a
 * copy of the user rows it references, without the password hash: a user is
 * copied when made a member, on signing in or switching to the instance,
 * and refreshed by their first request there every few minutes. The control
 * plane stays the only place accounts are changed or authenticated.
 */
@Injectable()
export class InstanceUserCopies {
  private readonly freshUntil = new Map<string, number>();

  constructor(
    private readonly databases: InstanceDatabases,
    private readonly queries: InstanceScopeQueries,
  ) {}

  /** Refreshes the copy unless this process did so recently (the per-request path). */
  async ensure(instanceId: string, userId: string, instance: DataSource): Promise<void> {
    const key = `${instanceId}:${userId}`;
    if ((this.freshUntil.get(key) ?? 0) > Date.now()) return;
    await this.copy(instanceId, userId, instance);
  }

  async copy(instanceId: string, userId: string, instance?: DataSource): Promise<void> {
    const target = instance ?? (await this.databases.dataSource(instanceId));
    const deployment = this.databases.deploymentDataSource;
    if (target === deployment) return;
    const found = await this.queries.userRow(deployment.manager, userId);
    if (!found) return;
    // Both databases run the same migrations, so the row converts column for column.
    await this.queries.upsertUserRow(target.manager, { ...found, password_hash: null });
    this.freshUntil.set(`${instanceId}:${userId}`, Date.now() + FRESH_MS);
  }
}
