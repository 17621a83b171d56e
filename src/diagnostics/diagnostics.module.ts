import { Module } from '@nestjs/common';
import { DiagnosticPingRepository } from './diagnostic-ping.repository.js';
import { DiagnosticsController } from './diagnostics.controller.js';
import { DiagnosticsService } from './diagnostics.service.js';

/** Controllers are only routed in the API process; the processor is DiagnosticsWorkerModule's. */
@Module({
  controllers: [DiagnosticsController],
  providers: [DiagnosticsService, DiagnosticPingRepository],
  exports: [DiagnosticsService],
})
export class DiagnosticsModule {}
