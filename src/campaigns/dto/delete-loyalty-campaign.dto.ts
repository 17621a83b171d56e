import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { Optional } from '../../common/validation/decorators.js';

export class DeleteLoyaltyCampaignQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    description: 'true: delete permanently with its program and cards. Otherwise the campaign is moved to the bin and its program shows DELETED. Either way the name can be reused.',
  })
  @Optional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'force must be true or false' })
  force?: boolean;
}
