import { Forbidden, InvalidTransition } from '../../common/errors/domain-error';

export class TicketMoveForbidden extends InvalidTransition {
  constructor(from: string, to: string) {
    super(
      `A ${from.replace('_', ' ')} ticket cannot move to ${to.replace('_', ' ')}; a closed ticket can only be reopened.`,
    );
  }
}

export class TicketEditForbidden extends Forbidden {
  constructor(action: 'edit' | 'delete') {
    super(
      action === 'edit'
        ? 'Only the reporter, the assignee or a member with edit access may change this ticket.'
        : 'Only the reporter (the ticket owner) or a Space Admin may delete this ticket.',
      action === 'edit' ? 'ticket_edit_forbidden' : 'ticket_delete_forbidden',
    );
  }
}
