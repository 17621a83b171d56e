import { Module } from '@nestjs/common';
import { InstanceSecretRepository } from './instance-secret.repository.js';
import { TransactionRunner } from './transaction-runner.js';

/**
 * The persistence kit's providers, made once and shared: the transaction runner every feature's services
 * use, and the instance secret (pagination signs its cursors with it). It needs the data source that the
 * composition's DatabaseModule (src/app/database/) registers; it imports nothing of the features.
 */
@Module({ providers: [TransactionRunner, InstanceSecretRepository], exports: [TransactionRunner, InstanceSecretRepository] })
export class DatabaseKitModule {}
