import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import {
  roleAtLeast,
  SpaceAccess,
  SpaceAccessPort,
  SpaceAccessRow,
  SpaceRef,
  SpaceRoleName,
} from '../../common/permissions/space-access.port';
import { isUuid } from './slug';
import { featuresWithDefaults } from './space-features';
import { SpacesQueries } from './spaces.queries';
import { FeatureDisabled, SpaceNotFound, SpaceRoleTooLow } from './spaces.errors';

const ROLE_LABEL: Record<SpaceRoleName, string> = {
  admin: 'Space Admin',
  editor: 'editor',
  viewer: 'viewer',
};

@Injectable()
export class SpaceAccessService extends SpaceAccessPort {
  private readonly prefetchTexts = new Map<string, string>();

  constructor(private readonly queries: SpacesQueries) {
    super();
  }

  async requireRole(
    actor: Actor,
    spaceIdOrSlug: string,
    minRole: SpaceRoleName,
    em: EntityManager,
  ): Promise<SpaceAccess> {
    const row = await this.queries.spaceWithRole(em, spaceIdOrSlug, actor.userId);
    return this.decide(actor, spaceIdOrSlug, row, minRole);
  }

  prefetchSql(spaceIdOrSlug: string, param: string, userColumn: string): string {
    const column = isUuid(spaceIdOrSlug) ? 'sp.id' : 'sp.slug';
    // One string per variant: it goes into named prepared statements, keyed by their text (composedText says why).
    const variant = `${column} ${param} ${userColumn}`;
    let sql = this.prefetchTexts.get(variant);
    if (sql === undefined) {
      sql = `(SELECT json_build_object('id', sp.id, 'slug', sp.slug, 'name', sp.name, 'features', sp.features, 'role', sm.role)
               FROM spaces sp LEFT JOIN space_memberships sm ON sm.space_id = sp.id AND sm.user_id = ${userColumn}
              WHERE ${column} = ${param})`;
      this.prefetchTexts.set(variant, sql);
    }
    return sql;
  }

  decide(
    actor: Actor,
    spaceIdOrSlug: string,
    row: SpaceAccessRow | null,
    minRole: SpaceRoleName,
  ): SpaceAccess {
    if (!row || (!row.role && !actor.isSuperadmin)) throw new SpaceNotFound(spaceIdOrSlug);
    const space: SpaceRef = {
      id: row.id,
      slug: row.slug,
      name: row.name,
      features: featuresWithDefaults(row.features ?? {}),
    };
    if (actor.isSuperadmin) return { space, role: row.role, effectiveRole: 'admin' };
    if (!roleAtLeast(row.role, minRole)) throw new SpaceRoleTooLow(ROLE_LABEL[minRole]);
    return { space, role: row.role, effectiveRole: row.role! };
  }

  requireFeature(space: SpaceRef, feature: string): void {
    if (space.features[feature] === false) throw new FeatureDisabled(feature);
  }

  async membersAmong(em: EntityManager, spaceId: string, userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    return new Set(await this.queries.memberIdsAmong(em, spaceId, userIds));
  }
}
