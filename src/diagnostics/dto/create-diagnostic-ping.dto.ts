import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Optional } from '../../common/validation/decorators.js';

export class CreateDiagnosticPingDto {
  @ApiPropertyOptional({ description: 'Free text echoed back, to tell pings apart.', maxLength: 200, example: 'deploy check' })
  @Optional()
  @IsString()
  @MaxLength(200)
  note?: string;

  @ApiPropertyOptional({ description: 'Milliseconds of simulated work in the worker before the ping is DONE (to observe graceful shutdown).', minimum: 0, maximum: 10000, default: 0 })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  work_ms?: number;
}
