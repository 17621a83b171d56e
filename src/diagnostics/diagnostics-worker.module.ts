import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { DiagnosticPingProcessor } from './diagnostic-ping.processor.js';
import { DiagnosticPingSweep } from './diagnostic-ping.sweep.js';
import { DiagnosticsModule } from './diagnostics.module.js';

/** The worker's side of diagnostics: the ping jobs and the sweep that enqueues again those Redis lost. */
@Module({})
export class DiagnosticsWorkerModule {}

export const DiagnosticsWorker = workerFeature(DiagnosticsWorkerModule, {
  imports: [DiagnosticsModule],
  providers: [DiagnosticPingSweep],
  processors: [DiagnosticPingProcessor],
});
