import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RememberedCredentials } from '../../common/auth/remembered-credentials';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { InstancesModule } from '../instances/instances.module';
import { UsersModule } from '../users/users.module';
import { AccountsCleanupService } from './accounts-cleanup.service';
import { AuthController } from './auth.controller';
import { AccountsQueries } from './accounts.queries';
import { AuthService } from './auth.service';
import { LoginFailure } from './entities/login-failure.entity';
import { PasswordResetToken } from './entities/password-reset-token.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { Session } from './entities/session.entity';
import { ImpersonationController } from './impersonation.controller';
import { JwtStrategy } from './jwt.strategy';
import { SessionsService } from './sessions.service';

@Module({
  imports: [
    UsersModule,
    ApiKeysModule,
    InstancesModule,
    PassportModule,
    TypeOrmModule.forFeature([Session, RefreshToken, PasswordResetToken, LoginFailure]),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ secret: config.jwtSecret, signOptions: { algorithm: 'HS256' } }),
    }),
  ],
  controllers: [AuthController, ImpersonationController],
  providers: [
    AuthService,
    SessionsService,
    JwtStrategy,
    // The authentication guard resolves tokens the JWT strategy verified before through it.
    { provide: RememberedCredentials, useExisting: JwtStrategy },
    AccountsCleanupService,
    AccountsQueries,
  ],
  exports: [SessionsService, RememberedCredentials],
})
export class AccountsModule {}
