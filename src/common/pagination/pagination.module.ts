import { Module } from '@nestjs/common';
import { DatabaseKitModule } from '../../database/database-kit.module.js';
import { CursorService } from './cursor.service.js';

@Module({ imports: [DatabaseKitModule], providers: [CursorService], exports: [CursorService] })
export class PaginationModule {}
