import { ApiProperty } from '@nestjs/swagger';
import { EmailField, StringField } from '../../../common/validation/field.decorators';
import { SSO_PROTOCOLS } from './sso-provider.dto';

export class DiscoverQuery {
  @EmailField({ description: 'The address whose domain picks the provider.' })
  email: string;
}

export class DiscoveredProviderResponse {
  @ApiProperty({ format: 'uuid' }) provider_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: SSO_PROTOCOLS, enumName: 'SsoProtocol' }) protocol: string;
  @ApiProperty({ description: 'Send the browser here to sign in.' }) login_url: string;
}

export class ExchangeCodeDto {
  @StringField({ min: 1, max: 200, description: 'The `code` of the `/sso/complete` redirect.' })
  code: string;
}

/** The SAML HTTP-POST binding. */
export class SamlCallbackDto {
  @StringField({ min: 1, max: 1_000_000, description: 'The base64 SAML Response.' })
  SAMLResponse: string;

  @StringField({ optional: true, max: 1000 })
  RelayState?: string;
}

/** A redirect described as JSON, for a client that asks with `Accept: application/json` rather than following it. */
export class SsoRedirectResponse {
  @ApiProperty({ description: 'The URL the browser would have been redirected to.' })
  location: string;
}
