import { Inject, Injectable } from '@nestjs/common';
import { API_PREFIX } from '../../common/http/legacy-path.middleware';
import { APP_CONFIG, AppConfig } from '../../config/app.config';

/** The public URLs of the SSO endpoints, as browsers and identity providers reach them (PUBLIC_BASE_URL). */
@Injectable()
export class SsoUrls {
  private readonly api: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.api = `${config.publicBaseUrl}/${API_PREFIX}/sso`;
  }

  /** The OIDC redirect URI and the SAML Assertion Consumer Service URL (one for every provider). */
  get callback(): string {
    return `${this.api}/callback`;
  }

  login(providerId: string): string {
    return `${this.api}/login/${providerId}`;
  }

  metadata(providerId: string): string {
    return `${this.api}/providers/${providerId}/metadata`;
  }

  /** Where a finished login sends the browser, with the one-time code or an error. */
  complete(params: Record<string, string>): string {
    return `${this.config.publicBaseUrl}/sso/complete?${new URLSearchParams(params).toString()}`;
  }
}
