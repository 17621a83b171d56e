import { Module } from '@nestjs/common';
import { DashboardAssetsService } from './dashboard-assets.service.js';
import { DashboardController } from './dashboard.controller.js';

/** Serves the built front-end of dashboard/ at /dashboard (API process only). */
@Module({
  controllers: [DashboardController],
  providers: [DashboardAssetsService],
})
export class DashboardModule {}
