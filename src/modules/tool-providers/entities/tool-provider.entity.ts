import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { ToolOverride } from '../provider-config';
import { Credential } from './credential.entity';

/** An external MCP server the platform's AI may use, started as a local stdio process. */
@Entity('tool_providers')
@Index('tool_providers_created_idx', ['createdAt', 'id'])
export class ToolProvider {
  @PrimaryColumn('uuid')
  id: string;

  @Index('tool_providers_slug_uq', { unique: true })
  @Column('text')
  slug: string;

  @Column('text')
  name: string;

  @Column('text', { default: '' })
  description: string;

  @Column('text')
  kind: 'mcp_stdio';

  @Column('text', { array: true })
  commandArgv: string[];

  @Column('text', { nullable: true })
  cwd: string | null;

  @Column('jsonb', { default: () => "'{}'" })
  env: Record<string, string>;

  @Index('tool_providers_credential_idx')
  @Column('uuid', { nullable: true })
  credentialId: string | null;

  // A deleted credential leaves the provider with `secret_env_var` and no secret: it fails closed.
  @ManyToOne(() => Credential, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'credential_id', foreignKeyConstraintName: 'tool_providers_credential_fk' })
  credential?: Credential;

  @Column('text', { nullable: true })
  secretEnvVar: string | null;

  @Column('jsonb', { default: () => "'{}'" })
  toolOverrides: Record<string, ToolOverride>;

  @Column('text', { default: '' })
  skillInstructions: string;

  @Column('boolean', { default: true })
  isActive: boolean;

  @Column('timestamptz', { nullable: true })
  lastDiscoveredAt: Date | null;

  @Column('text', { nullable: true })
  lastError: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
