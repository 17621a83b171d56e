import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { WebhookVerificationError } from 'standardwebhooks';
import { newWebhookSecret, standardSignatures, voucherifySignature } from '../../src/events/delivery/signing.js';
import { MAX_RETRIES, retryOffsetMs } from '../../src/events/delivery/worker/retry-schedule.js';
import { envelopeOf } from '../../src/events/delivery/webhook-envelope.js';
import { useStack } from '../support/fixture.js';
import { waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';
import { snippetsOf, verifyStandardWebhook, verifyVoucherifySignature } from '../support/verify-snippets.js';

const ADDED = 'customer.voucher.loyalty_card.pending_points.added';
const SNIPPETS = readFileSync(new URL('../support/verify-snippets.ts', import.meta.url), 'utf8');
const DOCS = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** An envelope as the service builds it (non-ASCII text included, since the signatures cover bytes). */
function sampleBody(deliveryId = 'whs_0123456789abcdef01'): string {
  return envelopeOf({
    id: deliveryId,
    projectId: 'proj_0123456789abcdef01',
    createdAt: new Date('2026-11-23T10:00:00.000Z'),
    attemptsCount: 0,
    firstAttemptAt: null,
    manual: false,
    test: false,
    distributionId: 'distr_0123456789abcdef01',
    targetUrl: 'https://crm.example.com/hooks/loyalty',
    customHeaders: {},
    eventName: null,
    trigger: ADDED,
    event: {
      id: 'evcus_0123456789abcdef01',
      type: ADDED,
      createdAt: new Date('2026-11-23T09:59:59.500Z'),
      entityId: 'cust_0123456789abcdef01',
      groupId: 'v-0123456789abcdef01',
      eventSource: { channel: 'API', api_key: { app_id: 'app_0123' } },
      // JSON text, as the events table holds it.
      data: JSON.stringify({ customer: { id: 'cust_0123456789abcdef01', name: 'Zoë Ünal — 東京', object: 'customer' }, pending_points: { points: 40, status: 'PENDING' } }),
    },
    secret: null,
  });
}

/** The headers the service sends with `body` (webhook-delivery.service.ts): `secrets[0]` is the current secret. */
function signedHeaders(body: string, secrets: string[], id = JSON.parse(body).id as string, at = new Date()): IncomingHttpHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'x-voucherify-signature': voucherifySignature(secrets[0], body),
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignatures(secrets, id, timestamp, body),
  };
}

describe('docs/webhooks.md: the verification snippets', () => {
  it('appear in the docs verbatim, as they are tested here', () => {
    const snippets = snippetsOf(SNIPPETS);
    expect([...snippets.keys()]).toEqual(['voucherify', 'standardwebhooks']);
    for (const [name, code] of snippets) {
      expect({ name, inDocs: DOCS.includes(`\`\`\`ts\n${code}\n\`\`\``) }).toEqual({ name, inDocs: true });
    }
  });

  it('the retry table is the schedule of retry-schedule.ts with the default base', () => {
    const rows = [...DOCS.matchAll(/^\| (\d+) \| retry (\d+) \| ([\d,]+) min/gm)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3].replace(/,/g, ''))]);
    expect(rows).toEqual(Array.from({ length: MAX_RETRIES }, (_, i) => [i + 2, i + 1, retryOffsetMs(i + 1, 60_000) / 60_000]));
  });

  describe('on a body signed as the service signs it', () => {
    const secret = newWebhookSecret();
    const body = sampleBody();
    const headers = signedHeaders(body, [secret]);

    it('the secret has the documented form: whsec_ and the base64 of 32 bytes', () => {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    });

    it('x-voucherify-signature verifies with node:crypto, from the raw bytes or the string', () => {
      expect(headers['x-voucherify-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyVoucherifySignature(Buffer.from(body, 'utf8'), headers['x-voucherify-signature'], [secret])).toBe(true);
      expect(verifyVoucherifySignature(body, headers['x-voucherify-signature'], [secret])).toBe(true);
    });

    it('webhook-signature verifies with the standardwebhooks package, with or without the whsec_ prefix', () => {
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verifyStandardWebhook(Buffer.from(body, 'utf8'), headers, secret)).toEqual(JSON.parse(body));
      expect(verifyStandardWebhook(body, headers, secret.slice('whsec_'.length))).toEqual(JSON.parse(body));
    });

    it('a tampered body fails both checks', () => {
      const tampered = body.replace('"points":40', '"points":41');
      expect(tampered).not.toBe(body);
      expect(verifyVoucherifySignature(tampered, headers['x-voucherify-signature'], [secret])).toBe(false);
      expect(() => verifyStandardWebhook(tampered, headers, secret)).toThrow(WebhookVerificationError);
      // One byte changed in the raw bytes (a re-encoded body, for instance) fails too.
      const bytes = Buffer.from(body, 'utf8');
      bytes[bytes.length - 2] ^= 1;
      expect(verifyVoucherifySignature(bytes, headers['x-voucherify-signature'], [secret])).toBe(false);
      expect(() => verifyStandardWebhook(bytes, headers, secret)).toThrow(WebhookVerificationError);
    });

    it('another secret, another webhook-id or timestamp, a missing or malformed header all fail', () => {
      const other = newWebhookSecret();
      expect(verifyVoucherifySignature(body, headers['x-voucherify-signature'], [other])).toBe(false);
      expect(verifyVoucherifySignature(body, undefined, [secret])).toBe(false);
      expect(verifyVoucherifySignature(body, `${String(headers['x-voucherify-signature'])}00`, [secret])).toBe(false);
      expect(verifyVoucherifySignature(body, String(headers['x-voucherify-signature']).toUpperCase(), [secret])).toBe(false);
      expect(() => verifyStandardWebhook(body, headers, other)).toThrow('No matching signature found');
      expect(() => verifyStandardWebhook(body, { ...headers, 'webhook-id': 'whs_ffffffffffffffffff' }, secret)).toThrow('No matching signature found');
      expect(() => verifyStandardWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, secret)).toThrow('No matching signature found');
      expect(() => verifyStandardWebhook(body, { ...headers, 'webhook-signature': undefined }, secret)).toThrow('Missing required headers');
    });

    it('a timestamp more than 5 minutes away is refused even when correctly signed (replays)', () => {
      const old = signedHeaders(body, [secret], undefined, new Date(Date.now() - 6 * 60_000));
      expect(() => verifyStandardWebhook(body, old, secret)).toThrow('Message timestamp too old');
      const ahead = signedHeaders(body, [secret], undefined, new Date(Date.now() + 6 * 60_000));
      expect(() => verifyStandardWebhook(body, ahead, secret)).toThrow('Message timestamp too new');
      // x-voucherify-signature covers the body only: it carries no protection against replays.
      expect(verifyVoucherifySignature(body, old['x-voucherify-signature'], [secret])).toBe(true);
    });
  });

  describe('during a rotation (two valid secrets)', () => {
    const previous = newWebhookSecret();
    const current = newWebhookSecret();
    const body = sampleBody();
    const headers = signedHeaders(body, [current, previous]);

    it('webhook-signature carries one entry per secret, and verifies with either secret', () => {
      expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifyStandardWebhook(body, headers, current)).toEqual(JSON.parse(body));
      expect(verifyStandardWebhook(body, headers, previous)).toEqual(JSON.parse(body));
      expect(() => verifyStandardWebhook(body, headers, newWebhookSecret())).toThrow(WebhookVerificationError);
    });

    it('x-voucherify-signature is made with the current secret only: accept both while you switch', () => {
      expect(verifyVoucherifySignature(body, headers['x-voucherify-signature'], [current])).toBe(true);
      expect(verifyVoucherifySignature(body, headers['x-voucherify-signature'], [previous])).toBe(false);
      expect(verifyVoucherifySignature(body, headers['x-voucherify-signature'], [previous, current])).toBe(true);
    });
  });
});

describe('docs/webhooks.md: the snippets verify what the service really sends', () => {
  const stack = useStack({ config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' }, worker: true, receiver: true, projects: ['Webhook verify project'] });
  const { receiver } = stack;
  let distributionId: string;
  let customer: string;

  beforeAll(async () => {
    const distribution = await stack
      .http()
      .post('/v1/distributions')
      .set(stack.a.headers)
      .send({ name: 'Verify', trigger: ADDED, target_url: receiver.url('/verify'), custom_headers: { 'x-receiver-key': 'abc' } });
    expect(distribution.status).toBe(200);
    distributionId = distribution.body.id;
    // A member under a rule with pending points: each paid order of theirs records an `added` event.
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 40, days: 1 }]);
    customer = unique('zoe');
    const created = await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: customer, name: 'Zoë Ünal — 東京' });
    expect(created.status).toBe(200);
    await enrol(stack.app, stack.a, campaign, customer);
  });

  /** Pays an order of the member, and waits for the webhook of its `added` event. */
  async function nextWebhook() {
    const before = receiver.on('/verify').length;
    const paid = await payOrder(stack.app, stack.a, { source_id: unique('order'), customer });
    expect(paid.status).toBe(200);
    return waitFor(async () => receiver.on('/verify')[before]);
  }

  it('a delivery verifies with both snippets and the secret of GET /v1/webhook-secret', async () => {
    const { secret } = (await stack.http().get('/v1/webhook-secret').set(stack.a.headers)).body as { secret: string };
    const request = await nextWebhook();
    expect(request.body).toContain('Zoë Ünal — 東京');
    expect(verifyVoucherifySignature(Buffer.from(request.body, 'utf8'), request.headers['x-voucherify-signature'], [secret])).toBe(true);
    const envelope = verifyStandardWebhook(Buffer.from(request.body, 'utf8'), request.headers, secret) as Record<string, unknown>;
    expect(envelope).toMatchObject({ id: request.headers['webhook-id'], project_id: stack.a.project.id, type: ADDED, source: { id: distributionId, object: 'distribution', target_url: receiver.url('/verify') } });
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'x-receiver-key': 'abc', 'user-agent': expect.stringMatching(/^loyalty-service-webhooks\/\d+\.\d+\.\d+$/) });
    expect(Object.keys(envelope)).toEqual(['id', 'project_id', 'created_at', 'type', 'data', 'source', 'event']);
    const event = envelope.event as { id: string; type: string };
    const listed = (await stack.http().get('/v1/events').query({ type: ADDED, limit: 100 }).set(stack.a.headers)).body.data as { id: string }[];
    expect(listed.map((e) => e.id)).toContain(event.id);
    expect(event.type).toBe(ADDED);
  });

  it('after a rotation, webhook-signature verifies with the old and the new secret; x-voucherify-signature with the new one', async () => {
    const old = ((await stack.http().get('/v1/webhook-secret').set(stack.a.headers)).body as { secret: string }).secret;
    const rotated = await stack.http().post('/v1/webhook-secret/rotate').set(stack.a.headers).send({ expire_previous_in_seconds: 3600 });
    expect(rotated.status).toBe(200);
    const current = rotated.body.secret as string;
    expect(current).not.toBe(old);
    const request = await nextWebhook();
    const body = Buffer.from(request.body, 'utf8');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandardWebhook(body, request.headers, current)).toMatchObject({ type: ADDED });
    expect(verifyStandardWebhook(body, request.headers, old)).toMatchObject({ type: ADDED });
    expect(verifyVoucherifySignature(body, request.headers['x-voucherify-signature'], [current])).toBe(true);
    expect(verifyVoucherifySignature(body, request.headers['x-voucherify-signature'], [old])).toBe(false);
    expect(verifyVoucherifySignature(body, request.headers['x-voucherify-signature'], [current, old])).toBe(true);
  });

  it('a redelivery has the same webhook-id and body, a new timestamp and signatures, and verifies', async () => {
    const { secret } = (await stack.http().get('/v1/webhook-secret').set(stack.a.headers)).body as { secret: string };
    const first = receiver.on('/verify')[0];
    const deliveryId = String(first.headers['webhook-id']);
    const count = receiver.on('/verify').length;
    const res = await stack.http().post(`/v1/distributions/${distributionId}/deliveries/${deliveryId}/redeliver`).set(stack.a.headers);
    expect(res.status).toBe(200);
    const again = await waitFor(async () => receiver.on('/verify')[count]);
    expect(again.headers['webhook-id']).toBe(deliveryId);
    expect(again.body).toBe(first.body);
    expect(verifyStandardWebhook(Buffer.from(again.body, 'utf8'), again.headers, secret)).toMatchObject({ id: deliveryId });
    expect(verifyVoucherifySignature(Buffer.from(again.body, 'utf8'), again.headers['x-voucherify-signature'], [secret])).toBe(true);
  });
});
