import { ApiProperty } from '@nestjs/swagger';
import { DIAGNOSTIC_PING_MAX_REQUEUES, PING_STATUSES, type DiagnosticPing, type PingStatus } from '../diagnostic-ping.entity.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';

export class DiagnosticPingDto {
  @ApiProperty({ example: EXAMPLE_IDS.ping })
  id: string;

  @ApiProperty({ enum: ['diagnostic_ping'], example: 'diagnostic_ping' })
  object: 'diagnostic_ping';

  @ApiProperty({
    enum: PING_STATUSES,
    description:
      `QUEUED until a worker has processed the job, then DONE. FAILED: the worker's sweep enqueued its job again ${DIAGNOSTIC_PING_MAX_REQUEUES} times (each time none was left to run: Redis had lost it, or its attempts had failed) and then gave the ping up; a FAILED ping is never processed.`,
  })
  status: PingStatus;

  @ApiProperty({ type: String, nullable: true })
  note: string | null;

  @ApiProperty({ description: 'Simulated work in the worker, in milliseconds.', example: 0 })
  work_ms: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a worker processed the ping; null unless DONE.' })
  processed_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Opaque id of the worker process that ran the job (`wrk_` and 18 hex characters): random per process, the same for every job that process runs, so pings can be told apart by worker. It does not reveal the host or the process id; the operator finds the process by it in the worker\'s ready log line or in `node dist/cli.js worker-health`. null unless DONE.',
    pattern: '^wrk_[0-9a-f]{18}$',
    example: 'wrk_5c1d0e9a7b3f2a4c61',
  })
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
