import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Optional, QueryInt } from '../validation/decorators.js';

/** `limit` as every list takes it: 1-100, default 10. */
export class LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
