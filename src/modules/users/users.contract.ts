/**
 * The users module's SQL fragment other modules embed: the caller's own
 * user row, as `GET /auth/me` and `GET /preferences` answer from it. The
 * accounts module's session check selects it from the users row it already
 * joins (`@Authenticated({ withOwnUser: true })`), so those routes make one
 * round trip; UsersQueries reads the same columns when it was not fetched.
 */

/** The own-user columns: their SQL (of the users row) and the entity property each is named after. */
const OWN_USER_COLUMNS: readonly (readonly [sql: string, property: string])[] = [
  ['id', 'id'],
  ['email', 'email'],
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['is_active', 'isActive'],
  ['is_superadmin', 'isSuperadmin'],
  ['avatar_style', 'avatarStyle'],
  ['avatar_color', 'avatarColor'],
  ['avatar_url', 'avatarUrl'],
  ['ai_literacy_status', 'aiLiteracyStatus'],
  ['ai_literacy_program', 'aiLiteracyProgram'],
  ['ai_literacy_completion_date::text', 'aiLiteracyCompletionDate'],
  ['ai_literacy_next_renewal::text', 'aiLiteracyNextRenewal'],
  ['created_at', 'createdAt'],
  ['last_login', 'lastLogin'],
  ['preferences', 'preferences'],
];

/** The entity properties the own-user columns are named after, in order. */
export const OWN_USER_PROPERTIES: readonly string[] = OWN_USER_COLUMNS.map(([, property]) => property);

/** The own-user columns of `alias`, named `<prefix><entity property>`; dates as TypeORM reads them. */
export function ownUserColumns(alias: string, prefix = ''): string {
  return OWN_USER_COLUMNS.map(([sql, property]) => `${alias}.${sql} AS "${prefix}${property}"`).join(', ');
}
