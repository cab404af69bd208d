import type { EntityManager } from 'typeorm';
import { Conflict, NotFound } from '../../common/errors/domain-error';
import { AiLiteracyStatus, User } from './entities/user.entity';

// Shared by UsersService (the /users routes) and UserDirectoryService (what other modules call).

export interface NewUser {
  email: string;
  passwordHash: string | null;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isSuperadmin: boolean;
}

/** AI literacy fields as a system outside the API reports them; a field left undefined is kept. */
export interface AiLiteracyChange {
  status?: AiLiteracyStatus;
  program?: string | null;
  completionDate?: string | null;
  nextRenewal?: string | null;
}

/** A field to set: the entity property, its new value (undefined: keep), and its API name. */
export type FieldChange = { [K in keyof User]: [K, User[K] | undefined, string] }[keyof User];

/** Assigns the given values that differ from the user's; answers the API names of the fields changed. */
export function assignChanged(user: User, changes: FieldChange[]): string[] {
  const changed: string[] = [];
  for (const [key, value, field] of changes) {
    if (value === undefined || user[key] === value) continue;
    Object.assign(user, { [key]: value });
    changed.push(field);
  }
  return changed;
}

export const aiLiteracyChanges = (change: AiLiteracyChange): FieldChange[] => [
  ['aiLiteracyStatus', change.status, 'ai_literacy_status'],
  ['aiLiteracyProgram', change.program, 'ai_literacy_program'],
  ['aiLiteracyCompletionDate', change.completionDate, 'ai_literacy_completion_date'],
  ['aiLiteracyNextRenewal', change.nextRenewal, 'ai_literacy_next_renewal'],
];

export async function requireUser(em: EntityManager, id: string, lock = false): Promise<User> {
  const user = await em.getRepository(User).findOne({
    where: { id },
    lock: lock ? { mode: 'pessimistic_write' } : undefined,
  });
  if (!user) throw new NotFound('user', id);
  return user;
}

export async function keepOneSuperadmin(em: EntityManager, user: User): Promise<void> {
  const others = await em
    .getRepository(User)
    .createQueryBuilder('u')
    .where('u.isSuperadmin = true AND u.isActive = true AND u.id <> :id', { id: user.id })
    .getCount();
  if (others === 0) {
    throw new Conflict('The last active superadmin cannot be demoted or deactivated.', 'last_superadmin');
  }
}
