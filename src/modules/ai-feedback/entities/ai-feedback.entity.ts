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

export const FEEDBACK_RATINGS = ['accepted', 'rejected', 'edited'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];

/**
 * One person's verdict on one AI answer. `log_id` points at the gateway's log
 * entry when the client knows it; it is kept without a foreign key so that
 * log retention never deletes feedback.
 */
@Entity('ai_feedback')
@Index('ai_feedback_created_idx', ['createdAt', 'id'])
@Index('ai_feedback_feature_created_idx', ['feature', 'createdAt'])
@Index('ai_feedback_rating_created_idx', ['rating', 'createdAt'])
@Index('ai_feedback_user_idx', ['userId'])
@Index('ai_feedback_log_idx', ['logId'])
export class AiFeedback {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  feature: string;

  @Column('uuid', { nullable: true })
  logId: string | null;

  @Column('text', { nullable: true })
  suggestionId: string | null;

  @Column('text')
  rating: FeedbackRating;

  @Column('text', { nullable: true })
  comment: string | null;

  @Column('uuid', { nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'ai_feedback_user_fk' })
  user?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
