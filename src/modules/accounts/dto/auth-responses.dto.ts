import { ApiProperty } from '@nestjs/swagger';
import { UuidField } from '../../../common/validation/field.decorators';

export class TokenResponse {
  @ApiProperty({ description: 'A JWT for `Authorization: Bearer`.' })
  access_token: string;

  @ApiProperty({ example: 'bearer' })
  token_type: 'bearer';

  @ApiProperty({ type: 'integer', description: 'Seconds until the access token expires.', example: 1800 })
  expires_in: number;

  @ApiProperty({ description: 'Opaque; rotates on every refresh. Also set as an HttpOnly cookie.' })
  refresh_token: string;
}

export class ImpersonationTokenResponse {
  @ApiProperty()
  access_token: string;

  @ApiProperty({ example: 'bearer' })
  token_type: 'bearer';

  @ApiProperty({ type: 'integer', example: 900 })
  expires_in: number;
}

export class MessageResponse {
  @ApiProperty()
  message: string;
}

export class ImpersonateParams {
  @UuidField()
  user_id: string;
}
