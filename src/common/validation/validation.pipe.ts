import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { FieldError, ValidationFailed } from '../errors/domain-error';
import { cacheValidationRules } from './validation-rules.cache';

/** One entry per invalid field: "is required" when it is missing, else its broken rules joined. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const rules = Object.entries(error.constraints ?? {});
    let own: FieldError[] = [];
    if (rules.some(([rule]) => rule === 'whitelistValidation')) {
      own = [{ field, message: `${field} is not a known field.` }];
    } else if (rules.length && error.value === undefined) {
      own = [{ field, message: `${field} is required.` }];
    } else if (rules.length) {
      own = [{ field, message: rules.map(([, message]) => message).join('; ') }];
    }
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/**
 * Rejects unknown fields and wrong types with 422 problem details listing
 * each field; never strips silently.
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationRules();
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value is read to tell "missing" from "invalid"; it is never echoed.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationFailed(flattenValidationErrors(errors)),
  });
}
