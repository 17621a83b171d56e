import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { DiagnosticPingProcessor } from './diagnostic-ping.processor.js';
import { DiagnosticsModule } from './diagnostics.module.js';

/** The worker's side of diagnostics: the ping jobs. */
@Module({})
export class DiagnosticsWorkerModule {}

export const DiagnosticsWorker = workerFeature(DiagnosticsWorkerModule, {
  imports: [DiagnosticsModule],
  processors: [DiagnosticPingProcessor],
});
