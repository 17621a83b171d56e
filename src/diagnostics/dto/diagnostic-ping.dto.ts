import { ApiProperty } from '@nestjs/swagger';
import { PING_STATUSES, type DiagnosticPing, type PingStatus } from '../diagnostic-ping.entity.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';

export class DiagnosticPingDto {
  @ApiProperty({ example: EXAMPLE_IDS.ping })
  id: string;

  @ApiProperty({ enum: ['diagnostic_ping'], example: 'diagnostic_ping' })
  object: 'diagnostic_ping';

  @ApiProperty({ enum: PING_STATUSES, description: 'QUEUED until a worker has processed the job, then DONE.' })
  status: PingStatus;

  @ApiProperty({ type: String, nullable: true })
  note: string | null;

  @ApiProperty({ description: 'Simulated work in the worker, in milliseconds.', example: 0 })
  work_ms: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  processed_at: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Host and process id of the worker that ran the job.', example: 'worker-1:4242' })
  processed_by: string | null;
}

export function toDiagnosticPingDto(ping: DiagnosticPing): DiagnosticPingDto {
  return {
    id: ping.id,
    object: 'diagnostic_ping',
    status: ping.status,
    note: ping.note,
    work_ms: ping.workMs,
    created_at: ping.createdAt.toISOString(),
    processed_at: ping.processedAt?.toISOString() ?? null,
    processed_by: ping.processedBy,
  };
}
