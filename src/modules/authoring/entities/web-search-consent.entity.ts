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
import { AuthoringTask } from './authoring-task.entity';

export const CONSENT_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/**
 * A consent interaction: the question "may this task search the public web
 * through this provider?" put to the user who asked. Its scope is the
 * grant's scope (user, space, definition, root task, binding, provider).
 * Binding and provider are plain ids: they belong to the tool-providers
 * module, and the record outlives them.
 */
@Entity('web_search_consents')
@Index('web_search_consents_pending_scope_idx', ['rootTaskId', 'userId', 'bindingId', 'providerId'], {
  where: "status = 'pending'",
})
@Index('web_search_consents_user_idx', ['userId'])
@Index('web_search_consents_space_idx', ['spaceId'])
@Index('web_search_consents_task_idx', ['taskId'])
export class WebSearchConsent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'web_search_consents_user_fk' })
  user?: User;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'web_search_consents_space_fk' })
  space?: Space;

  /** The task whose search asked for it. */
  @Column('uuid')
  taskId: string;

  @ManyToOne(() => AuthoringTask, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_id', foreignKeyConstraintName: 'web_search_consents_task_fk' })
  task?: AuthoringTask;

  @Column('uuid', { nullable: true })
  definitionId: string | null;

  @Column('uuid')
  rootTaskId: string;

  @Column('uuid')
  bindingId: string;

  @Column('uuid')
  providerId: string;

  /** Stored `pending`, `approved` or `rejected`; a pending one past `expiresAt` reads as `expired`. */
  @Column('text')
  status: ConsentStatus;

  /** Pending: when the question lapses. Approved: when the grant ends. */
  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  decidedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
