import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { Ticket } from './ticket.entity';

/** A comment on a ticket; `@email` mentions of members are resolved when it is posted. */
@Entity('ticket_comments')
@Index('ticket_comments_ticket_idx', ['ticketId', 'createdAt'])
@Index('ticket_comments_author_idx', ['authorId'])
export class TicketComment {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  ticketId: string;

  @Column('uuid')
  authorId: string;

  @Column('text')
  body: string;

  /** Members notified by an `@email` mention in the body. */
  @Column('uuid', { array: true, default: () => `'{}'` })
  mentionedUserIds: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Ticket, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'ticket_id', foreignKeyConstraintName: 'ticket_comments_ticket_fk' })
  ticket?: Ticket;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'ticket_comments_author_fk' })
  author?: User;
}
