import { canMoveTicket, mentionedEmails } from './ticket-rules';

describe('ticket status moves', () => {
  it('lets work move among open, in progress and resolved, and close from any', () => {
    expect(canMoveTicket('open', 'in_progress')).toBe(true);
    expect(canMoveTicket('in_progress', 'open')).toBe(true);
    expect(canMoveTicket('resolved', 'in_progress')).toBe(true);
    expect(canMoveTicket('open', 'closed')).toBe(true);
    expect(canMoveTicket('resolved', 'closed')).toBe(true);
  });

  it('only reopens a closed ticket', () => {
    expect(canMoveTicket('closed', 'open')).toBe(true);
    expect(canMoveTicket('closed', 'in_progress')).toBe(false);
    expect(canMoveTicket('closed', 'resolved')).toBe(false);
  });

  it('treats staying put as no move', () => {
    expect(canMoveTicket('closed', 'closed')).toBe(true);
  });
});

describe('mentions', () => {
  it('finds @email mentions, lowercased and deduplicated', () => {
    expect(mentionedEmails('Hi @Ana@Example.test and @bob@example.test, cc @ana@example.test.')).toEqual([
      'ana@example.test',
      'bob@example.test',
    ]);
  });

  it('ignores plain emails and bare @names', () => {
    expect(mentionedEmails('mail ana@example.test or ping @ana')).toEqual([]);
  });

  it('accepts a mention at the start, in parentheses and before punctuation', () => {
    expect(mentionedEmails('@a.b+c@ex.io: look (@d@ex.io)')).toEqual(['a.b+c@ex.io', 'd@ex.io']);
  });
});
