import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

/**
 * How many products a space has, kept in the transaction of every product
 * insert and delete, so that an unfiltered list of a large space needs no
 * count over all its rows. The count is the sum of the space's shards; a
 * shard may go below zero.
 */
@Entity('product_counts')
export class ProductCount {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'product_counts_pkey' })
  spaceId: string;

  /** Counts are spread over a few rows per space, so that concurrent creates do not queue on one row. */
  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'product_counts_pkey' })
  shard: number;

  @Column('integer', { default: 0 })
  total: number;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'product_counts_space_fk' })
  space?: Space;
}
