/**
 * The users module's SQL fragment other modules embed: the caller's own
 * user row, as `GET /auth/me` and `GET /preferences` answer from it. The
 * accounts module's session check selects it from the users row it already
 * joins (`@Authenticated({ withOwnUser: true })`), so those routes make one
 * round trip; UsersQueries reads the same columns when it was not fetched.
 */

/** The own-user columns of `alias`, named `<prefix><entity property>`; dates as TypeORM reads them. */
export function ownUserColumns(alias: string, prefix = ''): string {
  const column = (sql: string, property: string) => `${alias}.${sql} AS "${prefix}${property}"`;
  return [
    column('id', 'id'),
    column('email', 'email'),
    column('first_name', 'firstName'),
    column('last_name', 'lastName'),
    column('is_active', 'isActive'),
    column('is_superadmin', 'isSuperadmin'),
    column('avatar_style', 'avatarStyle'),
    column('avatar_color', 'avatarColor'),
    column('avatar_url', 'avatarUrl'),
    column('ai_literacy_status', 'aiLiteracyStatus'),
    column('ai_literacy_program', 'aiLiteracyProgram'),
    column('ai_literacy_completion_date::text', 'aiLiteracyCompletionDate'),
    column('ai_literacy_next_renewal::text', 'aiLiteracyNextRenewal'),
    column('created_at', 'createdAt'),
    column('last_login', 'lastLogin'),
    column('preferences', 'preferences'),
  ].join(', ');
}
