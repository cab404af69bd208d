import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';

/**
 * An external-research grant: an approved consent lets one user use one
 * binding's provider for one root task until it expires or is revoked.
 * Binding, provider, task and consent ids are kept as plain ids: the grant
 * outlives a deleted binding or provider, as a revoked record.
 */
@Entity('tool_grants')
@Index('tool_grants_lookup_idx', ['userId', 'rootTaskId', 'bindingId'], { where: 'revoked_at IS NULL' })
@Index('tool_grants_binding_active_idx', ['bindingId'], { where: 'revoked_at IS NULL' })
@Index('tool_grants_provider_active_idx', ['providerId'], { where: 'revoked_at IS NULL' })
@Index('tool_grants_space_idx', ['spaceId'])
export class ToolGrant {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'tool_grants_user_fk' })
  user?: User;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'tool_grants_space_fk' })
  space?: Space;

  @Column('uuid', { nullable: true })
  definitionId: string | null;

  @Column('uuid')
  rootTaskId: string;

  @Column('uuid')
  bindingId: string;

  @Column('uuid')
  providerId: string;

  @Column('uuid')
  consentId: string;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
