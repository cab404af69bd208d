import { Conflict, InvalidTransition } from '../../common/errors/domain-error';

export class AlertMoveForbidden extends InvalidTransition {
  constructor(from: string, action: 'acknowledge' | 'resolve') {
    super(
      action === 'acknowledge'
        ? `Only an open alert can be acknowledged; this one is ${from}.`
        : 'This alert is already resolved.',
    );
  }
}

export class CheckNotRunnable extends Conflict {
  constructor() {
    super(
      'A custom check takes pushed results (POST .../results); it cannot be run here.',
      'check_not_runnable',
    );
  }
}
