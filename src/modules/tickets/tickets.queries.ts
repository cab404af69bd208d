import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A ticket as listed on an incident. */
export interface LinkedTicketRow {
  id: string;
  title: string;
  status: string;
  priority: string;
  assignee_id: string | null;
  linked_at: Date;
}

/**
 * The tickets' raw SQL, all on ticket_incident_links: a link insert that
 * reports whether the link is new (INSERT … ON CONFLICT DO NOTHING RETURNING),
 * an incident's tickets joined with their link time, and the batch read of
 * the incidents linked to a page of tickets, each one statement where the
 * repository API would need several. Indexes: the primary key (ticket_id,
 * incident_id) for the insert and the batch read,
 * ticket_incident_links_incident_idx (incident_id, ticket_id) for an
 * incident's tickets, then the tickets primary key.
 */
@Injectable()
export class TicketQueries {
  /** Links the ticket to the incident; returns a row when the link is new. */
  async linkIncident(
    em: EntityManager,
    ticketId: string,
    incidentId: string,
    linkedBy: string | null,
  ): Promise<unknown[]> {
    return (await em.query(
      `INSERT INTO ticket_incident_links (ticket_id, incident_id, linked_by) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING ticket_id`,
      [ticketId, incidentId, linkedBy],
    )) as unknown[];
  }

  /** Tickets linked to the incident, oldest link first. */
  async linkedToIncident(em: EntityManager, incidentId: string): Promise<LinkedTicketRow[]> {
    return (await em.query(
      `SELECT t.id, t.title, t.status, t.priority, t.assignee_id, l.created_at AS linked_at
         FROM ticket_incident_links l JOIN tickets t ON t.id = l.ticket_id
        WHERE l.incident_id = $1
        ORDER BY l.created_at, t.id`,
      [incidentId],
    )) as LinkedTicketRow[];
  }

  /** The incident links of the tickets, oldest first. */
  async incidentLinks(
    em: EntityManager,
    ticketIds: string[],
  ): Promise<{ ticket_id: string; incident_id: string }[]> {
    return (await em.query(
      `SELECT ticket_id, incident_id FROM ticket_incident_links WHERE ticket_id = ANY($1::uuid[])
        ORDER BY created_at, incident_id`,
      [ticketIds],
    )) as { ticket_id: string; incident_id: string }[];
  }
}
