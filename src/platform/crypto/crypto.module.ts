import { Global, Module } from '@nestjs/common';
import { PasswordHasher } from './password-hasher.service';
import { SecretBox } from './secret-box.service';

@Global()
@Module({ providers: [PasswordHasher, SecretBox], exports: [PasswordHasher, SecretBox] })
export class CryptoModule {}
