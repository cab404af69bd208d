import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const AVATAR_STYLES = ['initials', 'gravatar', 'upload'] as const;
export type AvatarStyle = (typeof AVATAR_STYLES)[number];

export const AI_LITERACY_STATUSES = ['not_started', 'in_progress', 'completed', 'expired'] as const;
export type AiLiteracyStatus = (typeof AI_LITERACY_STATUSES)[number];

@Entity('users')
@Index('users_email_key', ['email'], { unique: true })
@Index('users_created_at_idx', ['createdAt'])
export class User {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Trimmed and lowercased. */
  @Column('text')
  email: string;

  /** argon2id; null for accounts that only sign in through SSO. */
  @Column('text', { nullable: true, select: false })
  passwordHash: string | null;

  @Column('text', { default: '' })
  firstName: string;

  @Column('text', { default: '' })
  lastName: string;

  @Column('boolean', { default: true })
  isActive: boolean;

  @Column('boolean', { default: false })
  isSuperadmin: boolean;

  @Column('text', { default: 'initials' })
  avatarStyle: AvatarStyle;

  @Column('text', { default: '#3B82F6' })
  avatarColor: string;

  /** Only for `upload`; `gravatar` URLs are derived from the email. */
  @Column('text', { nullable: true })
  avatarUrl: string | null;

  @Column('text', { default: 'not_started' })
  aiLiteracyStatus: AiLiteracyStatus;

  @Column('text', { nullable: true })
  aiLiteracyProgram: string | null;

  @Column('date', { nullable: true })
  aiLiteracyCompletionDate: string | null;

  @Column('date', { nullable: true })
  aiLiteracyNextRenewal: string | null;

  /** Only the keys the user changed; defaults are applied on read. */
  @Column('jsonb', { default: () => `'{}'` })
  preferences: Record<string, Record<string, unknown>>;

  @Column('timestamptz', { nullable: true })
  lastLogin: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  get fullName(): string {
    return [this.firstName, this.lastName].filter(Boolean).join(' ');
  }
}
