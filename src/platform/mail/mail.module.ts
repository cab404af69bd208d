import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailMessage } from './entities/mail-message.entity';
import { MailerService } from './mailer.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([MailMessage])],
  providers: [MailerService],
  exports: [MailerService],
})
export class MailModule {}
