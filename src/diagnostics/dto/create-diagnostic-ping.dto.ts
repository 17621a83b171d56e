import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateDiagnosticPingDto {
  @ApiPropertyOptional({ description: 'Free text echoed back, to tell pings apart.', maxLength: 200, example: 'deploy check' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  note?: string;
}
