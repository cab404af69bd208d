import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * An instance of the platform: its own database for spaces and everything
 * in them, under the one control plane (docs/decisions.md#instances). The row of
 * `default` stands for the deployment's own database and has no URL.
 */
@ControlPlaneEntity()
@Entity('instances')
@Index('instances_slug_key', ['slug'], { unique: true })
@Index('instances_created_at_idx', ['createdAt', 'id'])
export class Instance {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lowercase letters, digits and hyphens; what `instance` at sign-in may name instead of the id. */
  @Column('text')
  slug: string;

  @Column('text')
  name: string;

  /** The database's postgres:// URL, sealed (it usually holds a password); null for `default`. */
  @Column('text', { nullable: true, select: false })
  databaseUrlSealed: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
