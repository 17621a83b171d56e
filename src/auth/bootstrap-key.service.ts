import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { AuthService } from './auth.service.js';

/** API process only: applies BOOTSTRAP_APP_ID / BOOTSTRAP_APP_TOKEN at start. */
@Injectable()
export class BootstrapKeyService implements OnApplicationBootstrap {
  constructor(
    private readonly config: AppConfig,
    private readonly auth: AuthService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.bootstrapKey) await this.auth.ensureKey(this.config.bootstrapKey.appId, this.config.bootstrapKey.appToken);
  }
}
