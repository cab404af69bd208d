import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type PromptVersionStatus = 'active' | 'draft' | 'inactive';

/** A stored version of a prompt; version 0 is the code default and is never stored. */
@Entity('ai_prompt_versions')
@Unique('ai_prompt_versions_key_version_uq', ['promptKey', 'version'])
@Index('ai_prompt_versions_key_status_idx', ['promptKey', 'status'])
@Index('ai_prompt_versions_one_active_uq', ['promptKey'], { unique: true, where: "status = 'active'" })
export class AiPromptVersion {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  promptKey: string;

  @Column('integer')
  version: number;

  @Column('text')
  system: string;

  @Column('text')
  template: string;

  @Column('text', { array: true })
  variables: string[];

  @Column('text')
  status: PromptVersionStatus;

  @Column('text', { nullable: true })
  note: string | null;

  @Column('uuid', { nullable: true })
  sourceLogId: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
