import { ApiProperty } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';

  @ApiProperty({ description: 'Each dependency checked, all "up" (otherwise the answer is 503).', example: { postgres: 'up', redis: 'up' } })
  checks: Record<string, 'up'>;
}
