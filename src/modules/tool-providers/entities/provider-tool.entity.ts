import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { ToolHints } from '../provider-config';
import { ToolProvider } from './tool-provider.entity';

/**
 * A tool a provider listed at its last discovery. The effective metadata
 * columns are the provider's hints with its `tool_overrides` applied; they
 * are recomputed when either changes.
 */
@Entity('tool_provider_tools')
@Unique('tool_provider_tools_provider_name_uq', ['providerId', 'toolName'])
export class ProviderTool {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  providerId: string;

  @ManyToOne(() => ToolProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'tool_provider_tools_provider_fk' })
  provider?: ToolProvider;

  @Column('text')
  toolName: string;

  @Column('text', { default: '' })
  description: string;

  /** Exactly as the provider gave it (json, not jsonb: key order kept). */
  @Column('json')
  inputSchema: Record<string, unknown>;

  /** The provider's own annotations (readOnlyHint, …), kept to re-apply overrides without a discovery. */
  @Column('jsonb', { default: () => "'{}'" })
  hints: ToolHints;

  @Column('text')
  riskLevel: string;

  @Column('boolean')
  readOnly: boolean;

  @Column('boolean')
  writesData: boolean;

  @Column('boolean')
  returnsSensitive: boolean;

  @Column('boolean')
  requiresConfirmation: boolean;

  @Column('text', { array: true, default: () => "'{}'" })
  scopeTypes: string[];

  @Column('boolean')
  isEnabled: boolean;

  @Index('tool_provider_tools_capability_idx')
  @Column('text', { nullable: true })
  capabilityId: string | null;

  @Column('boolean', { nullable: true })
  capabilityCompatible: boolean | null;

  @Column('text', { nullable: true })
  capabilityValidationError: string | null;

  @Column('timestamptz')
  discoveredAt: Date;
}
