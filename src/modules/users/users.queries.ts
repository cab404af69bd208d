import { Injectable } from '@nestjs/common';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import type { User } from './entities/user.entity';
import { ownUserColumns } from './users.contract';

// The columns toUserResponse and the preferences read, named as the entity's properties (users.contract.ts).
const OWN_USER_SQL = `SELECT ${ownUserColumns('users')} FROM users WHERE id = $1`;

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
