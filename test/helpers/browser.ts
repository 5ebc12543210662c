import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); browser tests are skipped, loudly, when it is missing. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
    ],
  });
}

/**
 * A page that records console errors and page errors (CSP violations
 * included). The one message not counted is Chromium's note about the HTTP
 * status of a page the test navigated to on purpose (a form shown again with
 * 400/401): every failed subresource still counts.
 */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const documentStatuses = new Set<number>();
  page.on('response', (response) => {
    if (response.request().isNavigationRequest() && response.request().frame() === page.mainFrame() && response.status() >= 400)
      documentStatuses.add(response.status());
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /^Failed to load resource: the server responded with a status of (\d{3})/.exec(message.text())?.[1];
    const location = message.location().url;
    if (status !== undefined && documentStatuses.has(Number(status)) && location === page.url()) return;
    errors.push(`${message.text()} (${location})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** axe-core's browser bundle, evaluated in the page through the DevTools Protocol (which the page's CSP does not govern). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** The serious and critical accessibility violations axe-core finds on the page shown, one line each (empty when none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(`${AXE};0`);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}
