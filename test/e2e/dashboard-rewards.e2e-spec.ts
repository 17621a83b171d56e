import { type Browser, type Page, chromium } from 'playwright-core';
import { useStack } from '../support/fixture.js';
import { createFinishedCampaign } from '../support/harness.js';
import { bucketViolations, enrol, type PointsCampaign, unique } from '../support/points.js';

/**
 * The dashboard's rewards page and a card's redemptions (docs/dashboard.md, "Rewards"), driven through
 * Debian's Chromium by playwright-core against the real API, a worker, PostgreSQL and Redis. The steps run in
 * order in one browser tab, as a person would use it.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const STEP_MS = 45_000;

describe('dashboard rewards in a real browser', () => {
  let browser: Browser;
  let page: Page;
  let base: string;
  let campaign: PointsCampaign;
  let code: string;
  let rewardId: string;
  let redemptionId: string;
  const rewardName = unique('Mug');
  const consoleErrors: string[] = [];
  const stack = useStack({
    listen: true,
    worker: true,
    projects: ['Rewards dashboard project'],
    pointsDb: true,
    beforeClose: async () => {
      await browser?.close();
    },
  });
  const { db } = stack;
  const api = () => stack.http();

  beforeAll(async () => {
    base = stack.baseUrl;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(String(error)));

    campaign = await createFinishedCampaign<PointsCampaign>(stack.app, stack.a, { name: unique('Rewards program') });
    code = await enrol(stack.app, stack.a, campaign, unique('rewards-holder'));
    const added = await api().post(`/v1/loyalties/${campaign.id}/members/${code}/balance`).set(stack.a.headers).send({ points: 100, reason: 'welcome', expiration_type: 'NON_EXPIRING' });
    expect(added.status).toBe(200);
  }, 60_000);

  it('signs in and shows an empty catalogue', async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('App ID').fill(stack.a.app_id);
    await page.getByLabel('App token').fill(stack.a.app_token);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Distributions', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Rewards', exact: true }).click();
    await page.getByRole('heading', { name: 'Rewards', level: 1 }).waitFor();
    await page.getByText('No rewards yet.').waitFor();
  });

  it(
    'creates a MATERIAL reward with a stock (a refused stock shows the API message next to the field) and shows stock, redeemed and left',
    async () => {
      await page.getByRole('link', { name: 'New reward' }).click();
      await page.getByRole('heading', { name: 'New reward' }).waitFor();
      await page.getByLabel('Name').fill(rewardName);
      await page.getByLabel('Product').fill('prod_mug');
      await page.getByLabel('Stock').fill('-1');
      await page.getByRole('button', { name: 'Create reward' }).click();
      const error = page.locator('#field-stock-error');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/^stock /);
      await page.getByLabel('Stock').fill('5');
      await page.getByRole('button', { name: 'Create reward' }).click();

      await page.getByRole('heading', { name: rewardName }).waitFor();
      rewardId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
      expect((await api().get(`/v1/rewards/${rewardId}`).set(stack.a.headers)).body).toMatchObject({ name: rewardName, type: 'MATERIAL', stock: 5, redeemed: 0, parameters: { product: { id: 'prod_mug', sku_id: null } } });
      expect(await page.getByTestId('reward-stock').textContent()).toBe('5');
      expect(await page.getByTestId('reward-left').textContent()).toBe('5');
      await page.getByText('Not offered in any campaign yet.').waitFor();
    },
    STEP_MS,
  );

  it(
    'offers it in a loyalty campaign at a price in points, then changes the price',
    async () => {
      await page.getByLabel('Loyalty campaign').selectOption({ label: campaign.name });
      await page.getByLabel('Price in points', { exact: true }).fill('30');
      await page.getByRole('button', { name: 'Offer it' }).click();
      await page.getByRole('status').filter({ hasText: `Offered in ${campaign.name} for 30 points.` }).waitFor();
      const price = page.getByLabel(`Price in points in ${campaign.name}`);
      expect(await price.inputValue()).toBe('30');
      await price.fill('40');
      await page.getByRole('button', { name: 'Save price' }).click();
      await page.getByRole('status').filter({ hasText: `The price in ${campaign.name} is now 40 points.` }).waitFor();
      const assignments = (await api().get(`/v1/loyalties/${campaign.id}/rewards`).set(stack.a.headers)).body as { data: { reward_id: string; parameters: { loyalty: { points: number } } }[] };
      expect(assignments.data).toEqual([expect.objectContaining({ reward_id: rewardId, parameters: { loyalty: { points: 40 } } })]);
    },
    STEP_MS,
  );

  it(
    'a redemption made through the API shows in the catalogue (redeemed 1, left 4) and on the member card, which rolls it back: ROLLED_BACK, balance and stock restored',
    async () => {
      const redeemed = await api().post(`/v1/loyalties/${campaign.id}/members/${code}/redemption`).set(stack.a.headers).send({ reward: { id: rewardId } });
      expect(redeemed.status).toBe(200);
      redemptionId = redeemed.body.id as string;

      await page.getByRole('link', { name: 'Rewards', exact: true }).click();
      const row = page.locator(`tr[data-reward="${rewardId}"]`);
      await row.waitFor();
      expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining([rewardName, 'MATERIAL', 'Product prod_mug', '5', '1', '4']));

      await page.getByRole('link', { name: 'Loyalty', exact: true }).click();
      await page.getByRole('link', { name: `Members of ${campaign.name}` }).click();
      await page.locator('tbody a').first().click();
      await page.getByRole('heading', { name: /^Member/ }).waitFor();
      const balance = page.getByTestId('balance');
      await balance.filter({ hasText: /^60$/ }).waitFor();
      const entry = page.locator(`tr[data-redemption="${redemptionId}"]`);
      await entry.filter({ hasText: 'SUCCEEDED' }).waitFor();
      expect(await entry.textContent()).toContain(rewardName);

      await entry.getByRole('button', { name: `Roll back ${redemptionId}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Roll back this redemption?' });
      await dialog.getByLabel('Reason (optional)').fill('wrong size');
      await dialog.getByRole('button', { name: 'Roll back', exact: true }).click();
      await page.getByRole('status').filter({ hasText: `Rolled back ${redemptionId}: 40 points are back on the card` }).waitFor();
      await entry.filter({ hasText: 'ROLLED_BACK' }).waitFor();
      expect(await entry.getByRole('button').count()).toBe(0);
      await balance.filter({ hasText: /^100$/ }).waitFor();
      await page.getByText(`rollback of ${redemptionId}`).waitFor();

      const got = (await api().get(`/v1/redemptions/${redemptionId}`).set(stack.a.headers)).body as { status: string; related_redemptions: { rollbacks: { id: string }[] } };
      expect(got.status).toBe('ROLLED_BACK');
      expect(got.related_redemptions.rollbacks).toHaveLength(1);
      const rollback = (await api().get(`/v1/redemptions/${got.related_redemptions.rollbacks[0].id}`).set(stack.a.headers)).body as { reason: string };
      expect(rollback.reason).toBe('wrong size');
      const card = (await api().get(`/v1/loyalties/${campaign.id}/members/${code}`).set(stack.a.headers)).body as { loyalty_card: { balance: number } };
      expect(card.loyalty_card.balance).toBe(100);
      expect((await api().get(`/v1/rewards/${rewardId}`).set(stack.a.headers)).body).toMatchObject({ stock: 5, redeemed: 0 });
      expect(await bucketViolations(db, stack.a.project.id)).toEqual([]);
    },
    STEP_MS,
  );

  it(
    "Delete of an offered reward shows the API's resource_in_use; after its assignment is removed, it is deleted",
    async () => {
      await page.goto(`${base}/dashboard#/rewards/${rewardId}`);
      await page.getByRole('heading', { name: rewardName }).waitFor();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `Delete ${rewardName}?` });
      await dialog.getByRole('button', { name: 'Delete reward' }).click();
      await dialog.getByRole('alert').filter({ hasText: '400 Resource in use' }).waitFor();
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });

      await page.getByRole('button', { name: `Remove from ${campaign.name}` }).click();
      const confirm = page.getByRole('dialog', { name: 'Stop offering this reward here?' });
      await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
      await page.getByText('Not offered in any campaign yet.').waitFor();

      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.getByRole('button', { name: 'Delete reward' }).click();
      await page.getByRole('heading', { name: 'Rewards', level: 1 }).waitFor();
      expect((await api().get(`/v1/rewards/${rewardId}`).set(stack.a.headers)).status).toBe(404);
    },
    STEP_MS,
  );

  it('nothing was logged as an error in the console but the two refusals asked for', async () => {
    const refused = /^Failed to load resource: the server responded with a status of (\d+)/;
    expect(consoleErrors.map((text) => refused.exec(text)?.[1] ?? text)).toEqual(['400', '400']);
  });
});
