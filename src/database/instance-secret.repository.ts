import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { InstanceSecret } from './instance-secret.entity.js';

@Injectable()
export class InstanceSecretRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async get(name: string): Promise<Buffer | null> {
    const row = await this.dataSource.getRepository(InstanceSecret).findOneBy({ name });
    return row?.value ?? null;
  }
}
