import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailMessage } from './entities/mail-message.entity';
import { MailQueries } from './mail.queries';
import { MailerService } from './mailer.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([MailMessage])],
  providers: [MailerService, MailQueries],
  exports: [MailerService],
})
export class MailModule {}
