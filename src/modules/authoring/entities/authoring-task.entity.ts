import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';

/**
 * A pipeline-authoring task: the unit the web-search quota, consent scope
 * and evidence belong to. A task started with a parent is delegated (a
 * worker or subagent of the parent's root task) and may not search the web.
 */
@Entity('authoring_tasks')
@Index('authoring_tasks_space_created_idx', ['spaceId', 'createdAt'])
@Index('authoring_tasks_parent_idx', ['parentTaskId'])
@Index('authoring_tasks_root_idx', ['rootTaskId'])
@Index('authoring_tasks_created_by_idx', ['createdBy'])
export class AuthoringTask {
  /** Set by the service: a root task is its own root, so the id is needed before the insert. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'authoring_tasks_space_fk' })
  space?: Space;

  @Column('text')
  title: string;

  /** The pipeline definition being authored: an opaque id, part of the consent scope. */
  @Column('uuid', { nullable: true })
  definitionId: string | null;

  @Column('uuid', { nullable: true })
  parentTaskId: string | null;

  @ManyToOne(() => AuthoringTask, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'parent_task_id', foreignKeyConstraintName: 'authoring_tasks_parent_fk' })
  parent?: AuthoringTask;

  @Column('uuid')
  rootTaskId: string;

  @Column('boolean')
  delegated: boolean;

  /**
   * Live web searches holding a quota slot: completed ones and those in
   * flight. Kept on the task so one conditional UPDATE reserves a slot,
   * serialised by the row lock.
   */
  @Column('smallint', { default: 0 })
  webSearchSlots: number;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'authoring_tasks_created_by_fk' })
  creator?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
