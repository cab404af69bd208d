import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** A bearer token for the SCIM endpoints; only its SHA-256 is stored. */
@ControlPlaneEntity()
@Entity('scim_tokens')
@Index('scim_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('scim_tokens_created_at_idx', ['createdAt'])
export class ScimToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text', { select: false })
  tokenHash: string;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'scim_tokens_created_by_fk' })
  creator?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;
}
