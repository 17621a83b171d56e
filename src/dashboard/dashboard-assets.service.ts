import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { setDashboardSecurityHeaders } from './security-headers.js';

/**
 * Where `npm run build` puts the front-end (vite's outDir in dashboard/vite.config.ts). Two levels up from
 * this file is the repository root both for dist/dashboard/*.js and for src/dashboard/*.ts (the tests).
 */
export const DASHBOARD_BUILD_DIR = fileURLToPath(new URL('../../dist/dashboard-ui/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
}

/**
 * Serves the built dashboard from memory: a few small files read once at start, so a request never touches
 * the disk and no user-supplied path ever reaches the file system (an asset is looked up by name in a map).
 */
@Injectable()
export class DashboardAssetsService {
  private readonly index: Buffer | null;
  private readonly assets = new Map<string, Asset>();

  constructor() {
    const indexPath = join(DASHBOARD_BUILD_DIR, 'index.html');
    this.index = existsSync(indexPath) ? readFileSync(indexPath) : null;
    const assetDir = join(DASHBOARD_BUILD_DIR, 'assets');
    if (!existsSync(assetDir)) return;
    for (const name of readdirSync(assetDir)) {
      const type = TYPES[extname(name)];
      if (type) this.assets.set(name, { body: readFileSync(join(assetDir, name)), type });
    }
  }

  sendIndex(res: Response): void {
    setDashboardSecurityHeaders(res);
    if (!this.index) throw ApiError.serviceUnavailable('The dashboard is not built: run npm run build');
    // The page names hashed assets, so it must be revalidated to pick up a new build.
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(this.index);
  }

  sendAsset(name: string, res: Response): void {
    setDashboardSecurityHeaders(res);
    const asset = this.assets.get(name);
    if (!asset) throw ApiError.notFound('dashboard_asset', name);
    // File names carry a content hash: a changed file is a new name.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(asset.type).send(asset.body);
  }
}
