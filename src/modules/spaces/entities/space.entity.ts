import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A workspace: everything else (products, checks, policies, ...) belongs to one. */
@Entity('spaces')
@Index('spaces_slug_key', ['slug'], { unique: true })
@Index('spaces_name_idx', ['name'])
export class Space {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  /** `^[a-z0-9][a-z0-9-]{1,62}$`, unique. */
  @Column('text')
  slug: string;

  @Column('text', { nullable: true })
  description: string | null;

  /** Only the flags set explicitly; defaults are applied on read (see space-features.ts). */
  @Column('jsonb', { default: () => `'{}'` })
  features: Record<string, boolean>;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
