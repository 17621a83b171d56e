import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { Optional } from '../../common/validation/decorators.js';

export class DeleteLoyaltyCampaignQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    description:
      'true: delete permanently with its program and cards, in the background (the async action is IN_PROGRESS until the worker is done; meanwhile the program shows DELETED). Otherwise the campaign is moved to the bin and its program shows DELETED. Either way the campaign leaves every answer and its name can be reused at once.',
  })
  @Optional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'force must be true or false' })
  force?: boolean;
}
