/**
 * The web console in a real browser (Debian's Chromium, driven by playwright-core) over the console
 * fixture with the real engine: sign in by the labelled token field, the estates page, an estate's page
 * (members, certificates, the dependency picture), edit one image in the settings, the preview lists
 * exactly that object under its component, apply, the progress reaches done, the operations page. Each page
 * is saved as a screenshot (`PULUMI_KARMADA_SCREENSHOTS` names the directory; docs/console.md shows them).
 */
import { Browser, Page } from "playwright-core";
import { e2eTier } from "../../devkit/engine/tier";
import { expectText, launchChromium, snap as snapPage } from "../support/browser";
import { CONSOLE_TOKENS, ConsoleFixture, fixtureImage, startConsoleFixture } from "../support/consoleFixture";

jest.setTimeout(600_000);

const tier = e2eTier("console in a real browser (test/e2e/console-browser.test.ts)", {
  // Debian's Chromium (scripts/setup.sh installs it)
  binaries: ["chromium"],
  plugins: ["random"],
});

tier.describe("web console", () => {
  let fixture: ConsoleFixture;
  let browser: Browser;
  let page: Page;
  /** Requests the page made outside the console (none may: offline, no CDN). */
  let elsewhere: readonly string[] = [];
  const snap = (name: string) => snapPage(page, name);

  beforeAll(async () => {
    fixture = await startConsoleFixture("pk-console-web-", true);
    // deployed once through the API, so the estate page has members, certificates and a picture
    const up = await fetch(`${fixture.baseUrl}/api/v1/estates/dev/operations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${CONSOLE_TOKENS.ci}`, "Content-Type": "application/json" },
      body: JSON.stringify({ kind: "up" }),
    });
    const { id } = (await up.json()) as { id: string };
    await fetch(`${fixture.baseUrl}/api/v1/operations/${id}/events`, {
      headers: { Authorization: `Bearer ${CONSOLE_TOKENS.ci}` },
    }).then((r) => r.text());
    ({ browser, page, elsewhere } = await launchChromium(fixture.baseUrl));
  });

  afterAll(async () => {
    await browser?.close();
    await fixture?.stop();
  });

  it("asks for a token in a labelled field and refuses a wrong one", async () => {
    await page.goto(`${fixture.baseUrl}/`);
    await page.getByLabel("Console token").fill("not-a-token-of-this-console-at-all");
    await page.keyboard.press("Enter");
    await expectText(page.getByRole("alert"), /not accepted/);
    await snap("sign-in");
    await page.getByLabel("Console token").fill(CONSOLE_TOKENS.ci);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Estates" }).waitFor();
  });

  it("lists the estates; the estate's page shows members, certificates and the dependency picture", async () => {
    const row = page.getByRole("row", { name: /dev/ });
    await expectText(row, /0 of 2 Ready/);
    await snap("estates");
    await page.getByRole("link", { name: "dev" }).click();
    await page.getByRole("heading", { name: "Estate dev" }).waitFor();
    await expectText(page.getByRole("row", { name: /member1/ }), /Push\s*Unknown/);
    await expectText(page.getByRole("row", { name: /member2/ }), /Pull\s*Unknown/);
    await expectText(page.getByRole("row", { name: /karmada-ca/ }), /\d{4}/);
    await expectText(
      page.getByRole("img", { name: /Dependency picture/ }),
      /karmada[\s\S]*etcd|etcd[\s\S]*karmada/,
    );
    await expectText(page.locator(".graph li"), /karmada waits for etcd/);
    // the secret setting is named, never shown
    expect(await page.locator("textarea").count()).toBe(1);
    expect(await page.content()).not.toContain("PRIVATE KEY");
    await snap("estate");
  });

  it("previews one image edit as exactly that object, applies it and follows the progress to the end", async () => {
    const settings = page.getByLabel("karmada:controlPlane");
    const text = await settings.inputValue();
    await settings.fill(
      text.replace(
        fixtureImage("karmada-scheduler", "v1.18.2"),
        fixtureImage("karmada-scheduler", "v1.18.3"),
      ),
    );
    await page.getByRole("button", { name: "Preview changes" }).click();
    const preview = page.getByRole("region", { name: /Preview/ });
    await expectText(preview, /Preview: 1 object to change/);
    expect(await preview.locator("h4").allTextContents()).toEqual(["KarmadaControlPlane karmada"]);
    expect((await preview.locator("li").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim())).toEqual(
      ["replace karmada-scheduler (keepers)"],
    );
    await snap("preview");
    await page.getByRole("button", { name: "Apply" }).click();
    await expectText(
      page.getByRole("status").filter({ hasText: /operation/ }),
      /operation succeeded/,
      300_000,
    );
    await expectText(page.getByRole("list", { name: "Progress" }), /replace karmada-scheduler: done/);
    await snap("apply");
  });

  it("keeps the history; the members stay listed", async () => {
    await page.getByRole("link", { name: "Operations" }).click();
    await page.getByRole("heading", { name: "Operations" }).waitFor();
    const rows = page.getByRole("row");
    await expectText(rows.nth(1), /up\s*dev\s*succeeded\s*ci/);
    await snap("operations");
    await page.getByRole("link", { name: "Estates" }).click();
    await expectText(page.getByRole("row", { name: /dev/ }), /of 2 Ready/);
    expect(elsewhere).toEqual([]);
  });
});
