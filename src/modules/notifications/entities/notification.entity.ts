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

/** What became of a notification's email: queued now, waiting for a digest, or none. */
export type EmailStatus = 'queued' | 'digest' | 'sent_in_digest' | 'skipped';

@Entity('notifications')
@Index('notifications_user_created_idx', ['userId', 'createdAt', 'id'])
@Index('notifications_user_type_created_idx', ['userId', 'type', 'createdAt', 'id'])
@Index('notifications_digest_idx', ['userId'], { where: `email_status = 'digest'` })
// Pages are ordered by (created_at, id): the indexes end in both, so ties need no sort.
@Index('notifications_user_unread_created_idx', ['userId', 'createdAt', 'id'], { where: 'read = false' })
export class Notification {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'notifications_user_fk' })
  user?: User;

  @Column('text')
  type: string;

  @Column('text')
  title: string;

  @Column('text')
  message: string;

  @Column('jsonb', { default: () => `'{}'` })
  data: Record<string, unknown>;

  @Column('boolean', { default: false })
  read: boolean;

  @Column('text', { default: 'skipped' })
  emailStatus: EmailStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
