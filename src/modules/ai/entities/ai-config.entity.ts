import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const AI_PROVIDERS = ['openai', 'azure_openai', 'anthropic', 'openai_compatible'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** The LLM provider configuration; one per scope (today only `global`). */
@Entity('ai_configs')
export class AiConfig {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { unique: true })
  scope: string;

  @Column('text')
  provider: AiProvider;

  @Column('text')
  modelName: string;

  @Column('text', { nullable: true, select: false })
  apiKeySealed: string | null;

  @Column('text', { nullable: true })
  apiBaseUrl: string | null;

  @Column('double precision', { nullable: true })
  temperature: number | null;

  @Column('integer', { nullable: true })
  maxTokens: number | null;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
