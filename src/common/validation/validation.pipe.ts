import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { FieldError, ValidationFailed } from '../errors/domain-error';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => ({
      field,
      message: rule === 'whitelistValidation' ? `${field} is not a known field.` : message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Rejects unknown fields and wrong types with 422 problem details listing
 * each field; never strips silently.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailed(flatten(errors)),
  });
}
