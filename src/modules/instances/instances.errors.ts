import { Conflict, DomainError, Forbidden } from '../../common/errors/domain-error';

export class SlugTaken extends Conflict {
  constructor(slug: string) {
    super(`An instance with the slug ${slug} already exists.`, 'instance_slug_taken');
  }
}

/** `default` is the deployment's own database: it always exists, under its slug, for everyone. */
export class DefaultInstanceImmutable extends Conflict {
  constructor(detail: string) {
    super(detail, 'default_instance_immutable');
  }
}

export class InstanceHoldsSpaces extends DomainError {
  constructor(spaces: number) {
    super(
      409,
      'conflict',
      'Conflict',
      `The instance database still holds ${spaces} space${spaces === 1 ? '' : 's'}: delete them first, or pass force=true.`,
      { code: 'instance_not_empty', spaces },
    );
  }
}

export class InstanceMembershipRequired extends Forbidden {
  constructor(slug: string) {
    super(`You are not a member of the instance ${slug}.`, 'instance_membership_required');
  }
}
