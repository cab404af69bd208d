import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { RateLimitTier } from '../../../config/app.config';
import { Instance } from '../../instances/entities/instance.entity';
import { User } from '../../users/entities/user.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * A personal API key. Only its SHA-256 is stored; `prefix` (its first
 * characters) lets its owner recognise it. It acts as its creator.
 */
@ControlPlaneEntity()
@Entity('api_keys')
@Index('api_keys_key_hash_key', ['keyHash'], { unique: true })
@Index('api_keys_user_idx', ['userId', 'createdAt'])
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_fk' })
  user?: User;

  /** The one instance the key reaches: that of the token that created it. */
  @Column('uuid')
  instanceId: string;

  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id', foreignKeyConstraintName: 'api_keys_instance_fk' })
  instance?: Instance;

  @Column('text')
  name: string;

  @Column('text')
  prefix: string;

  @Column('text', { select: false })
  keyHash: string;

  @Column('text', { default: 'standard' })
  rateLimitTier: RateLimitTier;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Refreshed at most once a minute, not on every request. */
  @Column('timestamptz', { nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;

  /** `revoked` by its owner, or `account_deactivated`. */
  @Column('text', { nullable: true })
  revokedReason: string | null;
}
