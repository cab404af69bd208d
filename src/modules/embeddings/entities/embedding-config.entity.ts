import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const EMBEDDING_PROVIDERS = ['local', 'openai', 'azure_openai', 'cohere', 'voyage'] as const;
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];
export const EMBEDDING_STATUSES = ['active', 'pending_reindex', 'failed'] as const;
export type EmbeddingStatus = (typeof EMBEDDING_STATUSES)[number];

/**
 * The embedding configuration; one per scope. Only the control-plane scope
 * (`global`, `instance_id` null) exists today; an instance override is a row
 * with its own scope (`instance:<id>`) and `instance_id`.
 */
@Entity('embedding_configs')
export class EmbeddingConfig {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { unique: true })
  scope: string;

  @Column('uuid', { nullable: true })
  instanceId: string | null;

  @Column('text')
  provider: EmbeddingProvider;

  @Column('text')
  modelName: string;

  @Column('integer')
  dimensions: number;

  @Column('text', { nullable: true, select: false })
  apiKeySealed: string | null;

  @Column('text', { nullable: true })
  apiBaseUrl: string | null;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  @Column('text', { default: 'v1' })
  indexVersion: string;

  @Column('text', { default: 'active' })
  status: EmbeddingStatus;

  @Column('uuid', { nullable: true })
  updatedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
