import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { SpaceRoleName } from '../../../common/permissions/space-access.port';
import { User } from '../../users/entities/user.entity';
import { Space } from './space.entity';

/**
 * A user's role in a space. The primary key (space, user) serves the permission check.
 * `role` is the effective role: the highest of `directRole` and the roles the user's
 * SCIM groups are mapped to (MembersService.recomputeRoles).
 */
@Entity('space_memberships')
@Index('space_memberships_user_idx', ['userId', 'spaceId'])
export class SpaceMembership {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @Column('text')
  role: SpaceRoleName;

  /** Granted directly (space admins, the permissions import, the creator); null when only groups grant it. */
  @Column('text', { nullable: true })
  directRole: SpaceRoleName | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'space_memberships_space_fk' })
  space?: Space;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'space_memberships_user_fk' })
  user?: User;
}
