import type { EntityManager } from 'typeorm';
import type { Actor } from '../auth/actor';
import { composedText } from '../../database/statement-text';

export const SPACE_ROLES = ['admin', 'editor', 'viewer'] as const;
export type SpaceRoleName = (typeof SPACE_ROLES)[number];

const RANK: Record<SpaceRoleName, number> = { viewer: 1, editor: 2, admin: 3 };

/** True when `role` grants at least what `min` needs (admin > editor > viewer). */
export function roleAtLeast(role: SpaceRoleName | null | undefined, min: SpaceRoleName): boolean {
  return !!role && RANK[role] >= RANK[min];
}

/** What permission checks need to know of a space. */
export interface SpaceRef {
  id: string;
  slug: string;
  name: string;
  /** Feature flags with defaults applied. */
  features: Record<string, boolean>;
}

/** The result of a permission check: the space and what the caller may do in it. */
export interface SpaceAccess {
  space: SpaceRef;
  /** The caller's membership role; null for a superadmin who is not a member. */
  role: SpaceRoleName | null;
  /** The membership role, or `admin` for a superadmin: what the caller may do. */
  effectiveRole: SpaceRoleName;
}

/** The `{slug}` space and the caller's membership, as an authentication query fetched them; null: no such space. */
export interface PrefetchedSpace {
  /** The `{slug}` path value the row was fetched for. */
  key: string;
  row: SpaceAccessRow | null;
}

export interface SpaceAccessRow {
  id: string;
  slug: string;
  name: string;
  features: Record<string, boolean> | null;
  role: SpaceRoleName | null;
}

/** The select-list item `, (prefetchSql's subquery) AS space` of the credential queries, one string per subquery. */
export function spacePrefetchColumn(subquery: string): string {
  return composedText(', %SUBQUERY% AS space', '%SUBQUERY%', subquery);
}

/**
 * The permission check every space-scoped module uses. Declared here,
 * implemented and provided by the (global) spaces module, so that modules
 * below spaces need not import it.
 *
 * Non-member: 404 `space` (the space does not exist for them). Member whose
 * role is too low: 403. A superadmin passes everything.
 */
export abstract class SpaceAccessPort {
  /** By slug or id (for `{slug}` routes). */
  abstract requireRole(
    actor: Actor,
    spaceIdOrSlug: string,
    minRole: SpaceRoleName,
    em: EntityManager,
  ): Promise<SpaceAccess>;

  /**
   * A scalar subquery answering the space `spaceIdOrSlug` (bound as
   * `param`) with the membership of the user in `userColumn`, as JSON (a
   * SpaceAccessRow): the authentication query embeds it, so that a `{slug}`
   * route checks the session and the space role in one round trip.
   */
  abstract prefetchSql(spaceIdOrSlug: string, param: string, userColumn: string): string;

  /** `requireRole` on a row fetched by `prefetchSql` (null: no such space), without a query. */
  abstract decide(
    actor: Actor,
    spaceIdOrSlug: string,
    row: SpaceAccessRow | null,
    minRole: SpaceRoleName,
  ): SpaceAccess;

  /**
   * Throws 403 naming the feature when a space has it switched off.
   * Example: `access.requireFeature(space, 'quality.incidents')`.
   */
  abstract requireFeature(space: SpaceRef, feature: string): void;

  /** Which of these users are members of the space. */
  abstract membersAmong(em: EntityManager, spaceId: string, userIds: string[]): Promise<Set<string>>;
}

/**
 * Who belongs where, for modules that may not import the spaces module
 * (users, which spaces itself depends on).
 */
export interface MembershipSummary {
  id: string;
  name: string;
  slug: string;
  role: SpaceRoleName;
}

export abstract class MembershipDirectory {
  /** Every space the user is a member of, by name. */
  abstract spacesOf(userId: string): Promise<MembershipSummary[]>;

  /** The user's role in a space, or null. */
  abstract roleOf(userId: string, spaceId: string): Promise<SpaceRoleName | null>;

  /** How many spaces each user belongs to (missing users count 0). */
  abstract spacesCount(userIds: string[]): Promise<Map<string, number>>;

  /**
   * SQL fragments for user queries, so that the users module can filter by
   * membership in one query without knowing the table. `userColumn` is a
   * qualified column holding a user id; the named parameters are bound by
   * the caller. Members of `:spaceParam` (any space when left out), with the
   * role in `:roleParam` when given.
   */
  abstract memberOfSql(userColumn: string, params: { spaceParam?: string; roleParam?: string }): string;

  /** `userColumn` shares at least one space with the user in `:viewerParam`. */
  abstract sharesSpaceWithSql(userColumn: string, viewerParam: string): string;
}

/** A product governance role as shown on a user. */
export interface GovernanceRoleSummary {
  productId: string;
  productName: string;
  spaceId: string;
  role: 'owner' | 'steward';
}

/**
 * Product governance roles of a user, provided by the (global) catalog
 * module. Directory signature rule: the executor `em` first and required.
 */
export abstract class GovernanceDirectory {
  /** The user's owner/steward roles, limited to `spaceIds` when given. */
  abstract rolesOf(
    em: EntityManager,
    userId: string,
    spaceIds: string[] | null,
  ): Promise<GovernanceRoleSummary[]>;
}
