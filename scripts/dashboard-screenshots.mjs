// Screenshots of the dashboard's main pages for the README and docs/dashboard.md (docs/screenshots/*.png).
//
// Seeds a running instance through its API (a campaign with a pending-points rule, members with orders, points
// added and removed by hand, rewards offered in the campaign and redeemed (one redemption rolled back), distributions to a receiver this script runs on 127.0.0.1), then drives Debian's
// Chromium through it:
//
//   WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32 BOOTSTRAP_APP_ID=demo BOOTSTRAP_APP_TOKEN=demo-token-0123456789 npm start
//   APP_ID=demo APP_TOKEN=demo-token-0123456789 node scripts/dashboard-screenshots.mjs
//
// DASHBOARD_URL (default http://127.0.0.1:3000), CHROMIUM_PATH (default /usr/bin/chromium), OUT_DIR
// (default docs/screenshots). Use a fresh database: the pages show whatever the project holds.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.env.DASHBOARD_URL ?? 'http://127.0.0.1:3000';
const appId = process.env.APP_ID;
const token = process.env.APP_TOKEN;
const outDir = process.env.OUT_DIR ?? 'docs/screenshots';
if (!appId || !token) {
  console.error('Set APP_ID and APP_TOKEN to a key of the instance (see the comment at the top of this file).');
  process.exit(1);
}

const headers = { 'X-App-Id': appId, 'X-App-Token': token, 'Content-Type': 'application/json' };
async function api(method, path, body) {
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}
async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// A webhook endpoint that accepts everything, except /flaky, which answers 503 (a FAILED test delivery).
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(req.url === '/flaky' ? 503 : 200, { 'Content-Type': 'application/json' });
    res.end(req.url === '/flaky' ? '{"error":"maintenance"}' : '{"received":true}');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = (path) => `http://127.0.0.1:${receiver.address().port}${path}`;

const suffix = Date.now().toString(36).slice(-4);
const campaign = await api('POST', '/v1/loyalties', { name: `Summer Loyalty ${suffix}` });
await until('the campaign', async () => (await api('GET', `/v1/loyalties/${campaign.id}`)).vouchers_generation_status === 'DONE');
await api('POST', `/v1/loyalties/${campaign.id}/earning-rules`, [{ loyalty: { type: 'FIXED', points: 120 }, pending_points: { period_type: 'DAY', period_value: 14 } }]);
const crm = await api('POST', '/v1/distributions', { name: 'CRM: points activated', trigger: 'customer.voucher.loyalty_card.pending_points.activated', target_url: hook('/crm'), custom_headers: { 'X-Team': 'crm' } });
await api('POST', '/v1/distributions', { name: 'Analytics: points added', trigger: 'customer.voucher.loyalty_card.pending_points.added', target_url: hook('/analytics') });
const paused = await api('POST', '/v1/distributions', { name: 'Legacy endpoint', trigger: 'customer.voucher.loyalty_card.pending_points.canceled', target_url: hook('/flaky'), status: 'PAUSED' });

const members = [];
for (const [i, customer] of ['alice@example.com', 'bob@example.com', 'chloe@example.com'].entries()) {
  const member = await api('POST', `/v2/loyalties/programs/${campaign.program_id}/members`, { customer_identification: { type: 'customer_source_id', customer_source_id: `${suffix}-${customer}` } });
  members.push(member);
  for (const n of [1, 2]) await api('POST', '/v1/orders', { source_id: `order-${suffix}-${i}-${n}`, status: 'PAID', amount: 2499 * n, customer: { source_id: `${suffix}-${customer}` } });
}
// Activate one entry of the first two members: a ledger line each and a delivery to the CRM hook.
for (const member of members.slice(0, 2)) {
  const code = member.cards[0].card.code;
  const pending = await api('GET', `/v1/loyalties/members/${code}/pending-points`);
  await api('POST', `/v1/loyalties/members/${code}/pending-points/${pending.data[0].id}/activate`);
}
// Points by hand on the first member's card, so its page shows buckets with different last days.
{
  const code = members[0].cards[0].card.code;
  const lastDay = `${new Date().getFullYear() + 1}-12-31`;
  await api('POST', `/v1/loyalties/${campaign.id}/members/${code}/balance`, { points: 200, reason: 'Goodwill: late delivery', expiration_type: 'CUSTOM_DATE', expiration_date: lastDay });
  await api('POST', `/v1/loyalties/${campaign.id}/members/${code}/balance`, { points: -50, reason: 'Returned item' });
}
await api('POST', `/v1/distributions/${crm.id}/test`);
await api('POST', `/v1/distributions/${paused.id}/test`);
await until('settled deliveries', async () => {
  const list = await api('GET', `/v1/distributions/${crm.id}/deliveries?limit=10`);
  return list.data.length >= 3 && list.data.every((d) => d.status !== 'PENDING');
});

// Rewards: a mug with a stock offered for 100 points, a pay-with-points reward; the first member redeems the mug
// twice and one redemption is rolled back, so the catalogue shows redeemed units and the card its redemptions.
const mug = await api('POST', '/v1/rewards', { name: 'Logo mug', parameters: { product: { id: 'prod_mug', sku_id: 'sku_mug_blue' } }, stock: 40, attributes: { description: 'A blue mug with the shop logo' } });
const coin = await api('POST', '/v1/rewards', { name: 'Pay with points', parameters: { coin: { exchange_ratio: 1, points_ratio: 100 } } });
await api('POST', `/v1/rewards/${mug.id}/assignments`, { campaign: campaign.id, parameters: { loyalty: { points: 100 } } });
await api('POST', `/v1/rewards/${coin.id}/assignments`, { campaign: campaign.id });
{
  const code = members[0].cards[0].card.code;
  const first = await api('POST', `/v1/loyalties/${campaign.id}/members/${code}/redemption`, { reward: { id: mug.id } });
  await api('POST', `/v1/loyalties/${campaign.id}/members/${code}/redemption`, { reward: { id: mug.id } }).catch(() => undefined);
  await api('POST', `/v1/redemptions/${first.id}/rollback?reason=${encodeURIComponent('Out of blue, customer refunded')}`, {});
}

mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
page.setDefaultTimeout(15_000);
const shot = async (name) => {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
  console.log(`${outDir}/${name}.png`);
};

await page.goto(`${base}/dashboard`);
await page.getByLabel('App ID').fill(appId);
await shot('sign-in');
await page.getByLabel('App token').fill(token);
await page.getByRole('button', { name: 'Sign in', exact: true }).click();
await page.locator('tr', { hasText: 'CRM: points activated' }).getByText(/\d+ succeeded/).first().waitFor();
await shot('distributions');

await page.getByRole('link', { name: 'CRM: points activated' }).first().click();
await page.locator('tr[data-delivery]').first().waitFor();
await shot('distribution');

await page.locator('tr[data-delivery]').filter({ hasNotText: 'test' }).first().getByRole('link').click();
await page.locator('pre.json').waitFor();
await shot('delivery');

await page.goto(`${base}/dashboard#/distributions/new`);
await page.getByLabel('Name', { exact: true }).fill('Warehouse');
await page.getByLabel('Target URL').fill('ftp://warehouse.example.com/hook');
await page.getByRole('button', { name: 'Create distribution' }).click();
await page.locator('#field-target_url-error').waitFor();
await shot('distribution-form-error');

await page.getByRole('link', { name: 'Signing secret', exact: true }).click();
await page.getByTestId('secret-value').waitFor();
await page.getByRole('button', { name: 'Rotate secret' }).click();
await page.getByRole('dialog').waitFor();
await shot('secret-rotate');
await page.getByRole('button', { name: 'Cancel', exact: true }).click();

await page.getByRole('link', { name: 'Events', exact: true }).click();
await page.locator('tbody a').first().waitFor();
await shot('events');

await page.getByRole('link', { name: 'Loyalty', exact: true }).click();
await page.getByRole('link', { name: `Members of ${campaign.name}` }).click();
await page.locator('tbody a').first().waitFor();
await shot('members');

await page.goto(`${base}/dashboard#/loyalty/programs/${campaign.program_id}/members/${members[0].id}`);
await page.getByRole('button', { name: 'Activate' }).first().waitFor();
await page.locator('tr[data-bucket]').first().waitFor();
await shot('member-card');

await page.getByRole('link', { name: 'Rewards', exact: true }).click();
await page.locator('tr[data-reward]').first().waitFor();
await shot('rewards');

await page.getByRole('link', { name: 'Logo mug' }).click();
await page.locator('tr[data-assignment]').first().waitFor();
await shot('reward');

await browser.close();
receiver.close();
