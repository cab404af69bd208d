import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundHttpModule } from '../../platform/outbound-http/outbound-http.module';
import { AccountsModule } from '../accounts/accounts.module';
import { UsersModule } from '../users/users.module';
import { SsoAssertion } from './entities/sso-assertion.entity';
import { SsoLoginCode } from './entities/sso-login-code.entity';
import { SsoPendingLogin } from './entities/sso-pending-login.entity';
import { SsoProvider } from './entities/sso-provider.entity';
import { OidcClients } from './oidc-clients.registry';
import { SamlClients } from './saml-clients.registry';
import { SsoCleanupService } from './sso-cleanup.service';
import { SsoLoginController } from './sso-login.controller';
import { SsoLoginService } from './sso-login.service';
import { SsoProvidersController } from './sso-providers.controller';
import { SsoProvidersService } from './sso-providers.service';
import { SsoUrls } from './sso-urls.service';
import { SsoQueries } from './sso.queries';

/** Single sign-on with OIDC and SAML identity providers; sessions come from the accounts module. */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    OutboundHttpModule,
    TypeOrmModule.forFeature([SsoProvider, SsoPendingLogin, SsoLoginCode, SsoAssertion]),
  ],
  controllers: [SsoProvidersController, SsoLoginController],
  providers: [
    SsoProvidersService,
    SsoLoginService,
    OidcClients,
    SamlClients,
    SsoUrls,
    SsoCleanupService,
    SsoQueries,
  ],
})
export class SsoModule {}
