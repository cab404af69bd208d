import { ApiProperty } from '@nestjs/swagger';
import {
  BooleanField,
  EnumField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { CREDENTIAL_KINDS, type CredentialKind } from '../entities/credential.entity';

const SECRET_DOC =
  'Write-only: sealed at rest and never returned (see `secret_set`). A tool provider passes it to its process only as the variable named by its `secret_env_var`.';

export class CreateCredentialDto {
  @TextField({ max: 200, description: 'A label for people.' })
  name: string;

  @EnumField(CREDENTIAL_KINDS, { description: 'What the secret is: an API key or a bearer token.' })
  kind: CredentialKind;

  @StringField({ optional: true, min: 1, max: 4096, description: SECRET_DOC })
  secret?: string;

  @BooleanField({
    optional: true,
    default: true,
    description: 'An inactive credential makes its providers fail closed.',
  })
  is_active?: boolean;
}

export class UpdateCredentialDto {
  @TextField({ optional: true, max: 200 })
  name?: string;

  @EnumField(CREDENTIAL_KINDS, { optional: true })
  kind?: CredentialKind;

  @StringField({
    optional: true,
    nullable: true,
    min: 1,
    max: 4096,
    description: `${SECRET_DOC} null removes the stored secret (its providers then fail closed).`,
  })
  secret?: string | null;

  @BooleanField({ optional: true })
  is_active?: boolean;
}

export class CredentialParams {
  @UuidField()
  id: string;
}

export class CredentialResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: CREDENTIAL_KINDS }) kind: CredentialKind;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ description: 'Whether a secret is stored; the secret itself is never returned.' })
  secret_set: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: Date;
}
