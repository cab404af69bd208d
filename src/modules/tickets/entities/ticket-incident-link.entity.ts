import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Ticket } from './ticket.entity';

/**
 * A ticket linked to a quality incident. Owned here so that the tickets
 * module needs nothing from the quality module. `incident_id` has no foreign
 * key (that would tie this entity to the quality module's); incidents are
 * never deleted on their own, only with their space, whose tickets go too.
 */
@Entity('ticket_incident_links')
@Index('ticket_incident_links_incident_idx', ['incidentId', 'ticketId'])
export class TicketIncidentLink {
  @PrimaryColumn('uuid')
  ticketId: string;

  @PrimaryColumn('uuid')
  incidentId: string;

  @Column('uuid', { nullable: true })
  linkedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Ticket, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'ticket_id', foreignKeyConstraintName: 'ticket_incident_links_ticket_fk' })
  ticket?: Ticket;
}
