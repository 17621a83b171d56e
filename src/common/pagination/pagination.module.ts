import { Module } from '@nestjs/common';
import { InstanceSecretRepository } from '../../database/instance-secret.repository.js';
import { CursorService } from './cursor.service.js';

@Module({ providers: [CursorService, InstanceSecretRepository], exports: [CursorService] })
export class PaginationModule {}
