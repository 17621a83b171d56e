import { ApiProperty } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';

  @ApiProperty({
    description:
      'Each dependency checked, "up" or "down". PostgreSQL decides readiness (down: the answer is 503); Redis is reported but does not make the process unready (the routes that need it answer 503 themselves while it is down).',
    example: { postgres: 'up', redis: 'down' },
  })
  checks: { postgres: 'up'; redis: 'up' | 'down' };
}
