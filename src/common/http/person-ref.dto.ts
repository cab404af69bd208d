import { ApiProperty } from '@nestjs/swagger';

/** A user as another resource names one (owner, steward, reporter, uploader, ...): id and display name. */
export class PersonRef {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  full_name: string;
}
