import { Injectable } from '@nestjs/common';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import type { User } from './entities/user.entity';

// The columns toUserResponse reads, named as the entity's properties; dates as PostgreSQL writes them (as TypeORM reads them).
const OWN_USER_SQL = `SELECT id, email, first_name AS "firstName", last_name AS "lastName", is_active AS "isActive",
       is_superadmin AS "isSuperadmin", avatar_style AS "avatarStyle", avatar_color AS "avatarColor",
       avatar_url AS "avatarUrl", ai_literacy_status AS "aiLiteracyStatus", ai_literacy_program AS "aiLiteracyProgram",
       ai_literacy_completion_date::text AS "aiLiteracyCompletionDate",
       ai_literacy_next_renewal::text AS "aiLiteracyNextRenewal", created_at AS "createdAt", last_login AS "lastLogin"
  FROM users WHERE id = $1`;

/**
 * The signed-in user's hot reads (`GET /auth/me`, `GET /preferences`), in
 * raw SQL rather than the repository API: fixed statements run as named
 * prepared statements on the pool (outside any transaction), with no entity
 * mapping. Both use the users primary key.
 */
@Injectable()
export class UsersQueries {
  ownUser(prepared: PreparedQueries, userId: string): Promise<Partial<User>[]> {
    return prepared.queryOutsideTransaction<Partial<User>>(OWN_USER_SQL, [userId]);
  }

  preferences(prepared: PreparedQueries, userId: string): Promise<{ preferences: User['preferences'] }[]> {
    return prepared.queryOutsideTransaction<{ preferences: User['preferences'] }>(
      'SELECT preferences FROM users WHERE id = $1',
      [userId],
    );
  }
}
