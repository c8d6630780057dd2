/**
 * The console in a real browser (issue 28): Debian's headless Chromium signs in with the one-time
 * link a fresh local host prints, then works each page against the real routes: a key created,
 * used with the API and revoked (401), a file uploaded with progress, a scanner created and
 * versioned, a run on the timeline beside the player (a bar seeks it), a moment rendered and played,
 * a webhook endpoint with a delivered test event, a one-off preflight refused with the API's error,
 * a batch from a CSV, and sign-out. Every page is screenshotted (test-results/console/) and checked
 * with axe-core: no serious or critical violation.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostsOnOwnData, type HostProcess } from '../helpers/host-process.js';
import { allowTestPace } from '../helpers/processes.js';
import { twoShotVideo } from '../helpers/runs.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { checkPage, consoleErrors, launchChromium } from './browser.js';

const hosts = hostsOnOwnData('mss-console-');
let host: HostProcess;
let browser: Browser;
let page: Page;
let errors: string[];
let receiver: WebhookReceiver;
const made: { uploadId?: string; scannerId?: string } = {};

const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

beforeAll(async () => {
  [host, browser, receiver] = await Promise.all([
    hosts.start({
      // The webhook receiver listens on loopback; its deliveries' retries on a compressed schedule.
      LOCAL_ALLOW_LOOPBACK_TARGETS: '1',
      WEBHOOK_RETRY_SCALE: '0.0001',
      SIGNALS_RUNNER: 'lambda',
    }),
    launchChromium(),
    startWebhookReceiver(),
  ]);
  await allowTestPace(hosts.dataDir());
  page = await browser.newPage();
  errors = consoleErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await hosts.cleanUp();
});

describe('the console', () => {
  it('signs in with the link npm start prints, into HttpOnly SameSite=Strict session cookies', async () => {
    const link = /(http:\/\/\S+\/console\/auth\/local\?token=\S+)/.exec(host.output().stdout)?.[1];
    expect(link, host.output().stdout).toBeDefined();
    await page.goto(link ?? '');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/console/');
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'msc_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies.find((c) => c.name === 'msc_csrf')).toMatchObject({ httpOnly: false, sameSite: 'Strict' });
  });

  it('creates a key shown once, which the API accepts, and revokes it: the API refuses it (401)', async () => {
    await page.getByLabel('Name').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.secret code').textContent()) ?? '';
    expect(key).toMatch(/^sk_/);
    const account = (apiKey: string) => fetch(`${host.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await account(key)).status).toBe(200);
    await page.getByRole('cell', { name: 'browser test' }).waitFor();
    await checkPage(page, 'keys');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke browser test' }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await account(key)).status).toBe(401);
  });

  it('shows the account: plan, wallet and ledger', async () => {
    await nav('Account').click();
    await page.getByText('creator', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Ledger' }).waitFor();
    await checkPage(page, 'account');
  });

  it('uploads a dropped file straight to the signed target with progress, and shows the probe result', async () => {
    await nav('Uploads').click();
    const path = await twoShotVideo();
    await page.locator('input[type=file]').setInputFiles({ name: 'two-shot.mp4', mimeType: 'video/mp4', buffer: await readFile(path) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const probe = page.locator('.notice', { hasText: 'two-shot.mp4' });
    await probe.getByText('ready').waitFor({ timeout: 60_000 });
    expect(
      await page.locator('progress').evaluate((element) => {
        const bar = element as unknown as { value: number; max: number };
        return bar.value === bar.max && bar.max > 1_000;
      }),
    ).toBe(true); // every byte sent, as the bar shows
    made.uploadId = /upl_[0-9a-f]+/.exec((await probe.textContent()) ?? '')?.[0];
    expect(made.uploadId).toBeDefined();
    await page.getByRole('cell', { name: made.uploadId }).waitFor();
    await checkPage(page, 'uploads');
  });

  it('creates a scanner, saves a second version and diffs the two', async () => {
    await nav('Scanners').click();
    await page.getByLabel('Name').fill('Cuts');
    await page.getByLabel('Instructions').fill('Find the scene changes');
    await page.getByLabel('Min seconds').fill('5');
    await page.getByLabel('Max seconds').fill('5');
    await page.getByRole('button', { name: 'Create scanner' }).click();
    await page.locator('h2 .muted', { hasText: 'version 1' }).waitFor();
    made.scannerId = /scanners\/(scn_[0-9a-f]+)/.exec(page.url())?.[1];
    await page.getByLabel('Name').fill('Scene cuts');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.locator('h2 .muted', { hasText: 'version 2' }).waitFor();
    const diff = page.locator('table', { hasText: 'Version 1 against version 2' });
    await expect.poll(() => diff.locator('tr.changed th').allTextContents()).toEqual(['name (changed)']);
    await checkPage(page, 'scanners');
  });

  it('runs the scanner on the upload: live status, then the timeline beside the player; a bar seeks it', async () => {
    await page.getByRole('link', { name: 'Start a run with it' }).click();
    await page.getByLabel('Upload').selectOption(made.uploadId ?? '');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/console\/runs\/run_/);
    await page.locator('.status-completed').first().waitFor({ timeout: 150_000 });
    const bars = page.locator('.timeline .bar');
    await expect.poll(() => bars.count()).toBeGreaterThanOrEqual(2);
    const video = page.locator('video');
    await video.waitFor();
    const second = bars.nth(1);
    const label = (await second.getAttribute('aria-label')) ?? '';
    const [, minutes, seconds] = /, (\d+):(\d\d) to /.exec(label) ?? [];
    await second.click();
    await expect
      .poll(() => video.evaluate((v) => (v as unknown as { currentTime: number }).currentTime))
      .toBeCloseTo(Number(minutes) * 60 + Number(seconds), -0.5);
    await page.getByText('Relevance', { exact: true }).waitFor();
    await checkPage(page, 'runs');
  });

  it('renders a moment of the run and plays the MP4', async () => {
    await nav('Renders').click();
    await page.getByRole('checkbox').first().waitFor();
    await page.getByRole('button', { name: 'Render', exact: true }).click();
    const card = page.locator('.card').first();
    await card.locator('.status-completed').waitFor({ timeout: 150_000 });
    const video = card.locator('video');
    await expect.poll(() => video.evaluate((v) => (v as unknown as { readyState: number }).readyState), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    expect(await card.getByRole('link', { name: 'Download MP4' }).getAttribute('href')).toMatch(/^http/);
    await checkPage(page, 'renders');
  });

  it('creates a webhook endpoint (secret shown once) and sees its test delivery in the log', async () => {
    const hook = receiver.hook('/console');
    await nav('Webhooks').click();
    await page.getByLabel('URL (HTTPS, public)').fill(hook.url);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.locator('.secret code').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    hook.secrets.push(secret);
    await page.getByRole('button', { name: `Send a test event to ${hook.url}` }).click();
    const delivered = await hook.waitFor((r) => r.event.type === 'webhook.test', 30_000);
    expect(delivered.verifiedWith).toEqual([secret]);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('.status-succeeded').count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1);
    await checkPage(page, 'webhooks');
  });

  it("shows the API's error envelope when a one-off source is refused", async () => {
    await nav('Analyses').click();
    await page.getByLabel('Source URL').fill('https://untrusted.example/video.mp4');
    await page.getByRole('button', { name: 'Preflight' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('untrusted_source_url').waitFor();
    await expect.poll(() => alert.textContent()).toMatch(/request /);
    await checkPage(page, 'analyses');
  });

  it('submits a batch from a CSV in the CLI format and shows its counters and items', async () => {
    await nav('Batches').click();
    const csv = `client_id,scanner_id,upload_id\nep-1,${made.scannerId},${made.uploadId}\n`;
    await page.getByLabel('CSV file').setInputFiles({ name: 'batch.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Submit 1 item(s)' }).click();
    await page.waitForURL(/\/console\/batches\/bat_/);
    await page.getByRole('cell', { name: 'ep-1' }).waitFor();
    await expect.poll(() => page.locator('dl.counters').textContent()).toContain('total1');
    await checkPage(page, 'batches');
  });

  it('signs out: the console then shows how to sign in on each host', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    await page.getByRole('heading', { name: 'On the local host' }).waitFor();
    await checkPage(page, 'signed-out');
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });
});
