import { DomainError, Forbidden } from '../../common/errors/domain-error';

/** 404 for a missing space and, alike, for a space the caller is not a member of. */
export class SpaceNotFound extends DomainError {
  constructor(ref: string) {
    super(404, 'not-found', 'Not Found', `No space "${ref}" was found.`, {
      code: 'not_found',
      resource: 'space',
    });
  }
}

export class SpaceRoleTooLow extends Forbidden {
  constructor(needed: string) {
    super(`This needs the ${needed} role (or higher) in the space.`, 'space_role_required');
  }
}

export class FeatureDisabled extends Forbidden {
  constructor(feature: string) {
    super(`The ${feature} feature is switched off for this space.`, 'feature_disabled');
  }
}
