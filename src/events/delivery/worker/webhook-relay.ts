import { Injectable, Logger } from '@nestjs/common';
import type pg from 'pg';
import { AppConfig } from '../../../config/app-config.js';
import { createPgClient } from '../../../database/pg-client.js';
import { TransactionRunner } from '../../../database/transaction-runner.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { Rerun } from './rerun.js';
import { WorkerDeliveryRepository } from './worker-delivery.repository.js';
import { WebhookHousekeeping } from './webhook-housekeeping.js';

/** Events one relay transaction takes at most (fewer when their deliveries reach WEBHOOK_RELAY_MAX_DELIVERIES). */
const RELAY_BATCH = 1_000;
const RECONNECT_MS = 1_000;
/**
 * A relay run called again while it ran (more commits of events meanwhile) waits this long before the next:
 * under a steady stream of orders, one relay transaction per batch of commits instead of one per commit
 * (bench/README.md, "The relay by the batch"); a webhook waits at most this much longer.
 */
const RELAY_REST_MS = 20;

/**
 * The worker's relay from the events table (the outbox) to webhook deliveries. It runs when PostgreSQL
 * notifies a commit of events (the `events_notify_relay` trigger; NOTIFY is sent at commit, so a relay
 * never sees an event before it exists), and from the webhook sweep, which also covers notifications
 * missed while no worker listened. Each run relays in batches until no unrelayed event is left, and wakes
 * its dispatcher after each batch commits (the deliveries are rows, due now: the dispatcher claims them);
 * the other workers' dispatchers wake on the relay's `NOTIFY loyalty_deliveries`, on the same connection.
 * A batch makes at most WEBHOOK_RELAY_MAX_DELIVERIES deliveries (and takes at least one event), so that
 * one event matching many distributions cannot make one transaction insert millions of rows. The same
 * connection hears `loyalty_webhook_work` (a recover, resume or deletion the API recorded) and runs
 * WebhookHousekeeping, which the sweep runs too.
 */
@Injectable()
export class WebhookRelay {
  private readonly logger = new Logger('WebhookRelay');
  private listener: pg.Client | null = null;
  private readonly runs = new Rerun(
    () => this.drain(),
    (error) => this.logger.warn({ err: error }, 'relay failed; the webhook sweep will retry'),
    RELAY_REST_MS,
  );
  private stopped = false;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly deliveries: WorkerDeliveryRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly housekeeping: WebhookHousekeeping,
  ) {}

  start(): void {
    void this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    await this.listener?.end().catch(() => undefined);
    await this.runs.stop();
    await this.housekeeping.stop();
  }

  /** Relays whatever is unrelayed; a call during a run makes the run go round once more. */
  run(): Promise<number> {
    return this.runs.run();
  }

  /**
   * The webhook sweep: relay what notifications missed, have the dispatcher claim whatever is due
   * (deliveries whose worker died, whose retry job Redis lost, or whose job could not be added), and carry
   * out the recorded recovers, resumes and deletions (notifications missed, or a worker stopped midway).
   */
  async sweep(): Promise<number> {
    const relayed = await this.run();
    this.dispatcher.wake();
    // Not awaited: a long deletion must not hold up the next sweep's relay and claim.
    void this.housekeeping.run().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook housekeeping failed; the webhook sweep will retry'));
    return relayed;
  }

  private async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      this.runs.pass();
      const { relayed, deliveries, more } = await this.transactions.run((tx) => this.deliveries.relay(tx, RELAY_BATCH, this.config.webhook.relayMaxDeliveries));
      total += relayed;
      if (deliveries) this.dispatcher.wake();
      if (!more) return total;
    }
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = createPgClient(this.config.pooling.sessionUrl, { applicationName: 'loyalty-webhook-relay' });
    const retry = () => {
      if (this.listener === client) this.listener = null;
      if (!this.stopped && !this.reconnect) this.reconnect = setTimeout(() => ((this.reconnect = null), void this.listen()), RECONNECT_MS);
    };
    client.on('notification', (message) => {
      if (message.channel === 'loyalty_deliveries') return this.dispatcher.wake();
      if (message.channel === 'loyalty_webhook_work') {
        void this.housekeeping.run().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook housekeeping failed; the webhook sweep will retry'));
        return;
      }
      void this.run().catch((error: unknown) => this.logger.warn({ err: error }, 'relay failed; the webhook sweep will retry'));
    });
    client.on('error', (error) => this.logger.warn({ err: error }, 'relay listener lost its connection; reconnecting'));
    client.on('end', retry);
    try {
      await client.connect();
      await client.query('LISTEN loyalty_deliveries');
      await client.query('LISTEN loyalty_events');
      await client.query('LISTEN loyalty_webhook_work');
      this.listener = client;
      // Events committed while nobody listened.
      void this.run().catch((error: unknown) => this.logger.warn({ err: error }, 'relay failed; the webhook sweep will retry'));
    } catch (error) {
      this.logger.warn({ err: error }, 'relay listener could not connect; retrying');
      await client.end().catch(() => undefined);
      retry();
    }
  }
}
