import { createHash } from 'node:crypto';
import { UserResponse, UserSearchItem } from './dto/user-responses.dto';
import { User } from './entities/user.entity';

/** The email avatar service's URL for an address: MD5 of the trimmed, lowercased email. */
export function gravatarUrl(email: string): string {
  const digest = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${digest}?d=identicon&s=200`;
}

export function avatarUrlOf(user: User): string | null {
  if (user.avatarStyle === 'gravatar') return gravatarUrl(user.email);
  if (user.avatarStyle === 'upload') return user.avatarUrl;
  return null;
}

export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    full_name: user.fullName,
    is_active: user.isActive,
    is_superadmin: user.isSuperadmin,
    avatar_style: user.avatarStyle,
    avatar_color: user.avatarColor,
    avatar_url: avatarUrlOf(user),
    ai_literacy_status: user.aiLiteracyStatus,
    ai_literacy_program: user.aiLiteracyProgram,
    ai_literacy_completion_date: user.aiLiteracyCompletionDate,
    ai_literacy_next_renewal: user.aiLiteracyNextRenewal,
    created_at: user.createdAt.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
  };
}

export function toUserSearchItem(user: User): UserSearchItem {
  return { id: user.id, name: user.fullName, email: user.email, avatar_url: avatarUrlOf(user) };
}
