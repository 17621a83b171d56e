import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_KEYS } from '../errors/api-error.js';
import { EXAMPLE_IDS, patternExample } from './examples.js';

/** The body of every non-2xx answer (docs/errors.md). */
export class ErrorResponseDto {
  @ApiProperty({ description: 'The HTTP status code.', example: 404 })
  code: number;

  @ApiProperty({ enum: ERROR_KEYS, description: 'Stable machine-readable error key.', example: 'not_found' })
  key: string;

  @ApiProperty({ description: 'Short human-readable summary.', example: 'Resource not found' })
  message: string;

  @ApiPropertyOptional({ description: 'What exactly went wrong, naming the property or resource.', example: `Cannot find campaign with id ${EXAMPLE_IDS.campaign}` })
  details?: string;

  @ApiPropertyOptional({ description: 'Id of the request (also the X-Request-Id header); quote it when reporting a problem. Absent on 401, whose body is exactly Voucherify\'s.', ...patternExample(/^v-[0-9a-f]+$/, EXAMPLE_IDS.request) })
  request_id?: string;

  @ApiPropertyOptional({ description: 'Id of the resource involved.', example: EXAMPLE_IDS.campaign })
  resource_id?: string;

  @ApiPropertyOptional({ description: 'Type of the resource involved.', example: 'campaign' })
  resource_type?: string;

  @ApiPropertyOptional({ type: [String], description: '`resource_in_use` only: the resources that keep this one from being deleted (at most the first 100).', example: [EXAMPLE_IDS.rewardAssignment] })
  related_object_ids?: string[];

  @ApiPropertyOptional({ description: '`resource_in_use` only: their type.', example: 'reward_assignment' })
  related_object_type?: string;

  @ApiPropertyOptional({ description: '`resource_in_use` only: how many there are in all.', example: 1 })
  related_object_total?: number;
}
