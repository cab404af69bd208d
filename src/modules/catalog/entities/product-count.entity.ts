import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

/**
 * How many products a space has, kept in the transaction of every product
 * insert and delete, so that an unfiltered list of a large space needs no
 * count over all its rows.
 */
@Entity('product_counts')
export class ProductCount {
  @PrimaryColumn('uuid')
  spaceId: string;

  @Column('integer', { default: 0 })
  total: number;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'product_counts_space_fk' })
  space?: Space;
}
