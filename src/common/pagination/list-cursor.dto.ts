import { ApiProperty } from '@nestjs/swagger';

/** The `cursor` of a keyset page (CursorService signs it); every cursor-paged list answers with it. */
export class ListCursorDto {
  @ApiProperty({ description: 'Pass as `cursor` to get the next page.' })
  next: string;

  @ApiProperty({ format: 'date-time', description: 'The cursor is refused after this moment.' })
  expires_at: string;
}
