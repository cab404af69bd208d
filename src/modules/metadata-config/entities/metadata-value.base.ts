import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * Columns shared by the three metadata collections. Deletion is soft:
 * `deletedAt` is a plain column (not TypeORM's soft-delete column) so that
 * products that carry a deleted value still load it.
 */
export abstract class MetadataValue {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  /** `#RRGGBB`. */
  @Column('text')
  color: string;

  @Column('integer', { default: 0 })
  sortOrder: number;

  @Column('timestamptz', { nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
