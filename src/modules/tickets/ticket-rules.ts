import type { TicketStatus } from './entities/ticket.entity';

/**
 * Ticket status moves. Work moves freely among open, in progress and
 * resolved; a closed ticket is final except for reopening it (to `open`).
 */
const MOVES: Record<TicketStatus, readonly TicketStatus[]> = {
  open: ['in_progress', 'resolved', 'closed'],
  in_progress: ['open', 'resolved', 'closed'],
  resolved: ['open', 'in_progress', 'closed'],
  closed: ['open'],
};

export function canMoveTicket(from: TicketStatus, to: TicketStatus): boolean {
  return from === to || MOVES[from].includes(to);
}

// An email after `@`, not preceded by a word character (so "a@b.c" inside text is no mention).
const MENTION = /(?<![\w.+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;

/** The distinct emails mentioned as `@<email>` in a comment body, lowercased, in order of appearance. */
export function mentionedEmails(body: string): string[] {
  const found = new Set<string>();
  for (const match of body.matchAll(MENTION)) {
    found.add(match[1].replace(/[.]+$/, '').toLowerCase());
  }
  return [...found];
}
