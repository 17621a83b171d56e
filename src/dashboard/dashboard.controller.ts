import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator.js';
import { DashboardAssetsService } from './dashboard-assets.service.js';

/**
 * The web dashboard (docs/dashboard.md). Public: the page and its scripts hold no data; every data call the
 * page makes goes through the API's key guard. Not part of the API contract, so not in the OpenAPI document.
 */
@ApiExcludeController()
@Public()
@Controller('dashboard')
export class DashboardController {
  constructor(private readonly files: DashboardAssetsService) {}

  @Get()
  page(@Res() res: Response): void {
    this.files.sendIndex(res);
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    this.files.sendAsset(name, res);
  }
}
