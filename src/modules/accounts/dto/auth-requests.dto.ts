import {
  BooleanField,
  EmailField,
  EnumField,
  HexColorField,
  StringField,
  TextField,
} from '../../../common/validation/field.decorators';
import { AVATAR_STYLE_INPUTS } from '../../users/dto/user-requests.dto';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

function PasswordField(description = `At least ${PASSWORD_MIN} characters.`) {
  return StringField({ min: PASSWORD_MIN, max: PASSWORD_MAX, description });
}

export class RegisterDto {
  @EmailField({ description: 'The login name.' })
  email: string;

  @PasswordField()
  password: string;

  @StringField({ optional: true, max: 100 })
  first_name?: string;

  @StringField({ optional: true, max: 100 })
  last_name?: string;

  @BooleanField({
    optional: true,
    description: '`false` only by a superadmin (or for the very first account); otherwise 403.',
  })
  is_active?: boolean;

  @BooleanField({
    optional: true,
    description: '`true` only by a superadmin, or for the very first account (bootstrap); otherwise 403.',
  })
  is_superadmin?: boolean;
}

/** OAuth2 password-grant form; `username` is the email. */
export class TokenRequestDto {
  @StringField({ min: 1, max: 320, description: 'The account email.' })
  username: string;

  @StringField({ min: 1, max: PASSWORD_MAX })
  password: string;

  @StringField({ optional: true, max: 20, description: 'Ignored; `password` when sent by OAuth2 clients.' })
  grant_type?: string;

  @StringField({ optional: true, max: 500, description: 'Ignored.' })
  scope?: string;

  @StringField({ optional: true, max: 200, description: 'Ignored (sent by some OAuth2 clients).' })
  client_id?: string;

  @StringField({ optional: true, max: 200, description: 'Ignored (sent by some OAuth2 clients).' })
  client_secret?: string;

  @StringField({
    optional: true,
    min: 1,
    max: 63,
    description:
      'The instance to sign in to, by slug or id (default `default`): 404 when unknown, 403 when you are not a member. The access token names it in its `ins` claim.',
    example: 'default',
  })
  instance?: string;
}

export class RefreshRequestDto {
  // Roomy on purpose: a wrong credential here (an access or impersonation JWT sent as the refresh
  // token) is a 401, not a 422, so only absurd lengths fail validation.
  @StringField({
    optional: true,
    max: 8192,
    description:
      'The refresh token; may instead come from the HttpOnly cookie. Anything that is not a live refresh token (an access or impersonation token included) answers 401.',
  })
  refresh_token?: string;
}

export class UpdateAccountDto {
  @TextField({ optional: true, max: 200, description: 'Split at the first space into first and last name.' })
  full_name?: string;

  @HexColorField({ optional: true })
  avatar_color?: string;

  @EnumField(AVATAR_STYLE_INPUTS, { optional: true, description: '`email_avatar` is stored as `gravatar`.' })
  avatar_type?: string;

  @StringField({
    optional: true,
    nullable: true,
    max: 2000,
    pattern: /^https:\/\//,
    description: 'An HTTPS image URL for `upload` avatars.',
  })
  avatar_url?: string | null;
}

export class ForgotPasswordDto {
  @EmailField()
  email: string;
}

export class ResetPasswordDto {
  @StringField({ min: 1, max: 200, description: 'The token from the reset email.' })
  token: string;

  @PasswordField()
  new_password: string;
}

export class ChangePasswordDto {
  @StringField({ min: 1, max: PASSWORD_MAX })
  current_password: string;

  @PasswordField()
  new_password: string;
}
