import { ApiProperty } from '@nestjs/swagger';
import { AI_LITERACY_STATUSES, AVATAR_STYLES } from '../entities/user.entity';

/** A user as returned by registration, /auth/me and user updates. */
export class UserResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty()
  first_name: string;

  @ApiProperty()
  last_name: string;

  @ApiProperty({ description: 'First and last name joined by a space.' })
  full_name: string;

  @ApiProperty()
  is_active: boolean;

  @ApiProperty()
  is_superadmin: boolean;

  @ApiProperty({ enum: AVATAR_STYLES, description: '`gravatar` is the email avatar service.' })
  avatar_style: string;

  @ApiProperty({ example: '#3B82F6' })
  avatar_color: string;

  @ApiProperty({ type: String, nullable: true, description: 'Null for initials avatars.' })
  avatar_url: string | null;

  @ApiProperty({ enum: AI_LITERACY_STATUSES })
  ai_literacy_status: string;

  @ApiProperty({ type: String, nullable: true })
  ai_literacy_program: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true })
  ai_literacy_completion_date: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true })
  ai_literacy_next_renewal: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_login: string | null;
}

export class ProfileSpace {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  slug: string;

  @ApiProperty({ enum: ['admin', 'editor', 'viewer'] })
  role: string;
}

/** The caller's own profile (`GET /users/me`). */
export class ProfileResponse extends UserResponse {
  @ApiProperty({ type: ProfileSpace, isArray: true })
  spaces: ProfileSpace[];
}

export class UserDetailSpace {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['admin', 'editor', 'viewer'] })
  role: string;
}

export class GovernanceRole {
  @ApiProperty({ format: 'uuid' })
  product_id: string;

  @ApiProperty()
  product_name: string;

  @ApiProperty({ enum: ['owner', 'steward'] })
  role: string;
}

/** `GET /users/{id}`: a viewer who is not a superadmin sees only the spaces they share. */
export class UserDetailResponse extends UserResponse {
  @ApiProperty({ type: UserDetailSpace, isArray: true })
  spaces: UserDetailSpace[];

  @ApiProperty({ type: GovernanceRole, isArray: true })
  governance_roles: GovernanceRole[];
}

export class UserListItem {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ description: 'Full name.' })
  name: string;

  @ApiProperty()
  is_active: boolean;

  @ApiProperty({ type: 'integer' })
  spaces_count: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_login: string | null;
}

export class UserListResponse {
  @ApiProperty({ type: UserListItem, isArray: true })
  items: UserListItem[];

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ type: 'integer', description: '1-based page number.' })
  page: number;

  @ApiProperty({ type: 'integer' })
  size: number;
}

export class UserSearchItem {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ type: String, nullable: true })
  avatar_url: string | null;
}
