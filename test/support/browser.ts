/**
 * The web console in Debian's Chromium, driven by playwright-core: launching it, saving a page as a
 * screenshot, waiting for text, signing in. For the browser drills (the console fixture's and the local
 * estate's).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Browser, chromium, Page } from "playwright-core";
import { findBinary } from "../../devkit/testbed";

/** A page of the console in a running Chromium. */
export interface ConsoleBrowser {
  readonly browser: Browser;
  readonly page: Page;
  /** Requests the page made outside `baseUrl` (none may: offline, no CDN). */
  readonly elsewhere: readonly string[];
}

/** Starts Chromium with one page watching for requests outside `baseUrl`. */
export async function launchChromium(baseUrl: string): Promise<ConsoleBrowser> {
  // as root, Chromium's own sandbox cannot start: the page is ours, on loopback
  const browser = await chromium.launch({ executablePath: findBinary("chromium")!, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const elsewhere: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(baseUrl)) elsewhere.push(request.url());
  });
  return { browser, page, elsewhere };
}

/** Where screenshots go: `PULUMI_KARMADA_SCREENSHOTS` (docs/console.md shows docs/images/console). */
export function screenshotDir(): string {
  const dir =
    process.env.PULUMI_KARMADA_SCREENSHOTS ??
    path.join(process.env.TMPDIR ?? os.tmpdir(), "console-screenshots");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Saves the whole page as `<screenshotDir>/<name>.png`. */
export async function snap(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshotDir(), `${name}.png`), fullPage: true });
}

/** Waits until `locator`'s text matches (the page updates as answers arrive). */
export async function expectText(
  locator: ReturnType<Page["locator"]>,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    last =
      (await locator
        .first()
        .textContent({ timeout: Math.max(1, deadline - Date.now()) })
        .catch(() => "")) ?? "";
    if (pattern.test(last)) return;
    if (Date.now() > deadline) throw new Error(`text ${JSON.stringify(last)} never matched ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Opens the console and signs in with `token` by its labelled field; resolves on the estates page. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("Console token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Estates" }).waitFor();
}
