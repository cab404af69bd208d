import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** A single-use, one-hour password reset token, stored by hash. */
@ControlPlaneEntity()
@Entity('password_reset_tokens')
@Index('password_reset_tokens_user_idx', ['userId'])
export class PasswordResetToken {
  @PrimaryColumn('text')
  tokenHash: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'password_reset_tokens_user_fk' })
  user?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  usedAt: Date | null;
}
