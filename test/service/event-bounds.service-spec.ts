import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { CreateLoyaltyCampaignDto } from '../../src/campaigns/dto/create-loyalty-campaign.dto.js';
import { CardsModule } from '../../src/cards/cards.module.js';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { internalCause } from '../../src/events/recording/event-recording.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { ExpiryRepository } from '../../src/points/buckets/expiry.repository.js';
import { ExpiryService } from '../../src/points/buckets/expiry.service.js';
import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
import { CreateOrderDto } from '../../src/points/orders/dto/order.dto.js';
import { OrdersService } from '../../src/points/orders/orders.service.js';
import { PendingPointsService } from '../../src/points/pending/pending-points.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { addDueBuckets, unique } from '../support/points.js';
import { enrolCustomer, pointsProgram } from '../support/service-points.js';
import { body, type Services, useServices } from '../support/services.js';

const PENDING = 'customer.voucher.loyalty_card.pending_points';
const CARD = 'customer.voucher.loyalty_card';

/** An item as long as the order's validation lets it be (three strings of 255 characters): about 850 bytes of JSON. */
function items(count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({
    source_id: `line-${i}-`.padEnd(255, 'x'),
    product_id: `prod-${i}-`.padEnd(255, 'p'),
    sku_id: `sku-${i}-`.padEnd(255, 's'),
    quantity: 1,
    price: 100,
    amount: 100,
  }));
}

/** Metadata of about `kib` KiB, within the metadata limits (strings of 10,000 characters). */
function metadata(kib: number): Record<string, string> {
  const strings = Math.ceil((kib * 1024) / 10_000);
  return Object.fromEntries(Array.from({ length: strings }, (_, i) => [`k${i}`, 'm'.repeat(Math.min(10_000, kib * 1024 - i * 10_000))]));
}

interface EventRow {
  type: string;
  bytes: number;
  data: Record<string, any>;
}

async function eventsOf(services: Services, projectId: string, type?: string): Promise<EventRow[]> {
  return services.db.query<EventRow>(
    `SELECT type, octet_length(data::text) AS bytes, data FROM events WHERE project_id = $1 AND ($2::text IS NULL OR type = $2) ORDER BY seq`,
    [projectId, type ?? null],
  );
}

async function paidOrder(services: Services, project: ProjectContext, customer: object, fields: object) {
  return services.get(OrdersService).create(project, await body(CreateOrderDto, { source_id: unique('bounded-order'), status: 'PAID', amount: 10_000, customer, ...fields }));
}

/**
 * Issue 36, "work per order bounded": an order within the caps (100 rules of one campaign, an item list and
 * metadata near the 1 MiB body limit) writes one event per rule, each within EVENT_PAYLOAD_MAX_BYTES (here the
 * default), its order a summary. Before, every event carried the whole order: 100 × ~930 KB.
 */
describe('the events of one order within the caps are bounded in bytes', () => {
  const services = useServices({ imports: [PointsModule] });

  it('100 rules and an order near the body limit: one event per rule, each within EVENT_PAYLOAD_MAX_BYTES, the order a summary', async () => {
    const max = services.config.events.payloadMaxBytes;
    const project = await services.project();
    const rules = 100;
    const { programId } = await pointsProgram(services, project, Array.from({ length: rules }, () => ({ points: 1, days: 30 })));
    const customer = unique('bounded-holder');
    await enrolCustomer(services, project, programId, customer);
    const order = { items: items(500), metadata: metadata(480) };
    expect(Buffer.byteLength(JSON.stringify({ source_id: unique('o'), status: 'PAID', amount: 10_000, customer: { source_id: customer }, ...order }))).toBeLessThan(1024 * 1024);
    await paidOrder(services, project, { source_id: customer }, order);

    const events = await eventsOf(services, project.id, `${PENDING}.added`);
    expect(events).toHaveLength(rules);
    const total = events.reduce((sum, e) => sum + e.bytes, 0);
    expect(Math.max(...events.map((e) => e.bytes))).toBeLessThanOrEqual(max);
    expect(total).toBeLessThanOrEqual(rules * max);
    for (const { data } of events) {
      expect(data.order.items.length).toBeLessThanOrEqual(10);
      expect(data.order.items.length + data.order.items_omitted).toBe(500);
      // 480 KiB of the order's metadata do not fit in one event, even with the summary's items left out.
      expect(data.order).toMatchObject({ metadata: {}, metadata_omitted: true });
    }
  });
});

/**
 * Issue 36, "events have a size bound": with a small EVENT_PAYLOAD_MAX_BYTES, an event of each type whose list
 * is too long is cut to fit, the count of what was left out next to the list; a value that is no list (a
 * customer's metadata) is left out, marked, only when the event does not fit even with its lists empty.
 */
describe('an event of each type is cut to EVENT_PAYLOAD_MAX_BYTES', () => {
  const MAX = 32_768;
  const services = useServices({ imports: [PointsModule, CardsModule, DatabaseKitModule], providers: [ExpiryRepository, ExpiryService], config: { EVENT_PAYLOAD_MAX_BYTES: String(MAX), POINTS_EXPIRY_CHUNK_BUCKETS: '1000' } });
  const { db } = services;

  it('the pending-points events (added, updated, activated, canceled): the order\'s items cut, counted in order.items_omitted', async () => {
    const project = await services.project();
    const { programId } = await pointsProgram(services, project, [{ points: 5, days: 30 }, { points: 7, days: 30 }]);
    const customer = unique('cut-holder');
    const { cards } = await enrolCustomer(services, project, programId, customer);
    const code = cards[0].code;
    // The customer's metadata (24 KiB) leaves less room than the order summary's ten items (8.5 KB) need.
    const customerMetadata = metadata(24);
    const order = await paidOrder(services, project, { source_id: customer, metadata: customerMetadata }, { items: items(500) });
    const [first, second] = await db.entries({ orderId: order.id });
    const pending = services.get(PendingPointsService);
    await pending.adjust(project, code, first.id, 3);
    await pending.activate(project, code, first.id);
    await pending.cancel(project, code, second.id);

    const events = await eventsOf(services, project.id);
    expect(events.map((e) => e.type).sort()).toEqual([`${PENDING}.activated`, `${PENDING}.added`, `${PENDING}.added`, `${PENDING}.canceled`, `${PENDING}.updated`]);
    for (const { type, bytes, data } of events) {
      expect({ type, fits: bytes <= MAX }).toEqual({ type, fits: true });
      expect(data.order.items.length).toBeGreaterThan(0);
      expect(data.order.items.length).toBeLessThan(10);
      expect(data.order.items.length + data.order.items_omitted).toBe(500);
      expect(data.order.items[0]).toEqual({ ...items(1)[0], object: 'order_item' });
      expect(data.customer.metadata).toEqual(customerMetadata);
      expect(data.customer).not.toHaveProperty('metadata_omitted');
    }
  });

  it('what no cut can shorten stays within the least bound the configuration accepts: every field at its longest, escaped six-fold', async () => {
    // U+0001 is one character of the input and six bytes of the stored JSON (\u0001): the longest text an input limit allows.
    const longest = (length: number) => '\u0001'.repeat(length);
    const project = { ...(await services.project()), apiKey: { appId: 'app-id', name: longest(200) }, requestId: 'v-0123456789abcdef01' };
    const campaignDto = await body(CreateLoyaltyCampaignDto, {
      name: longest(200),
      description: longest(10_000),
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
      metadata: metadata(40),
    });
    const campaign = await services.get(CampaignsService).create(project, campaignDto);
    const rule = await body(CreateEarningRuleDto, { loyalty: { type: 'FIXED', points: 5 }, pending_points: { period_type: 'DAY', period_value: 30 }, source: { banner: longest(255) } });
    await services.get(EarningRulesService).create(project, campaign.id, [rule]);
    const customer = longest(254) + 'x';
    const { cards } = await enrolCustomer(services, project, campaign.program_id, customer);
    const order = await paidOrder(services, project, { source_id: customer, name: longest(255), email: `${'e'.repeat(64)}@${'d'.repeat(60)}.example.com`, metadata: metadata(40) }, {
      source_id: longest(255),
      items: items(500),
      metadata: metadata(40),
    });
    const [entry] = await db.entries({ orderId: order.id });
    await services.get(PendingPointsService).activate(project, cards[0].code, entry.id);

    const events = await eventsOf(services, project.id);
    expect(events.map((e) => e.type)).toEqual([`${PENDING}.added`, `${PENDING}.activated`]);
    for (const { bytes, data } of events) {
      expect(bytes).toBeLessThanOrEqual(MAX);
      expect(data.customer).toMatchObject({ name: longest(255), metadata: {}, metadata_omitted: true });
      expect(data.campaign).toMatchObject({ name: longest(200), metadata: {}, metadata_omitted: true, description_omitted: true });
      expect(data.campaign).not.toHaveProperty('description');
      expect(data.order).toMatchObject({ source_id: longest(255), metadata: {}, metadata_omitted: true });
      expect(data.order.items.length + data.order.items_omitted).toBe(500);
      expect(data.pending_points.details.earning_rule.source.banner).toBe(longest(255));
    }
  });

  it('points_added and points_removed have no list: a customer\'s metadata too large for the event is left out, marked', async () => {
    const project = await services.project();
    const { programId } = await pointsProgram(services, project, []);
    const customer = unique('big-metadata-holder');
    const { cards } = await enrolCustomer(services, project, programId, customer);
    await db.query('UPDATE customers SET metadata = $2 WHERE project_id = $1 AND source_id = $3', [project.id, JSON.stringify(metadata(40)), customer]);
    const balance = services.get(BalanceService);
    await balance.change(project, null, cards[0].code, await body(BalanceChangeDto, { points: 50, reason: 'bonus' }), undefined);
    await balance.change(project, null, cards[0].code, await body(BalanceChangeDto, { points: -20 }), undefined);

    const events = await eventsOf(services, project.id);
    expect(events.map((e) => e.type)).toEqual([`${CARD}.points_added`, `${CARD}.points_removed`]);
    for (const { bytes, data } of events) {
      expect(bytes).toBeLessThanOrEqual(MAX);
      expect(data.customer).toMatchObject({ metadata: {}, metadata_omitted: true, source_id: customer });
      expect(data.transaction.details).toMatchObject({ balance: expect.any(Object) });
    }
  });

  it('points_expired: its buckets (and the transaction\'s) cut, counted in buckets_omitted', async () => {
    const project = await services.project();
    const { programId } = await pointsProgram(services, project, []);
    const customer = unique('many-buckets-holder');
    const { cards } = await enrolCustomer(services, project, programId, customer);
    const buckets = 400;
    // Due buckets of 400 distinct past days (one bucket per card and day), the card's points that they hold and
    // their ledger row; the chunk (POINTS_EXPIRY_CHUNK_BUCKETS above) takes them in one statement, hence one event.
    await addDueBuckets(db, cards[0].id, buckets, 1, 2);
    const expired = await services.get(ExpiryService).sweep(1_000, internalCause());
    expect(expired).toBe(buckets);

    const [event] = await eventsOf(services, project.id, `${CARD}.points_expired`);
    expect(event.bytes).toBeLessThanOrEqual(MAX);
    expect(event.data.points).toBe(2 * buckets);
    expect(event.data.buckets.length).toBeGreaterThan(0);
    expect(event.data.buckets.length + event.data.buckets_omitted).toBe(buckets);
    const details = event.data.transaction.details;
    expect(details.buckets.length + details.buckets_omitted).toBe(buckets);
    expect(details.buckets[0].id).toBe(event.data.buckets[0].id);
  });
});
