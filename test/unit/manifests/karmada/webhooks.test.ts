import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  defaultWebhookBaseUrl,
  MUTATING_WEBHOOKS,
  VALIDATING_WEBHOOKS,
  webhookConfigurations,
} from "../../../../lib/manifests/karmada/webhooks";
import { PLACEHOLDERS } from "../../../../lib/manifests/placeholders";
import { ConfigError } from "../../../../lib/validation/errors";
import { testSettings } from "../../../support/settings";
import { KARMADA_MODULE, describeUpstream, upstreamModuleDir, upstreamYaml } from "../../../support/upstream";

const BASE = "https://karmada-webhook.karmada-host.svc:443";
const byKind = (kind: string) => webhookConfigurations(BASE).find((o) => o.kind === kind) as any;

describe("webhookConfigurations", () => {
  it("builds mutating-config and validating-config with one entry per served webhook", () => {
    const mutating = byKind("MutatingWebhookConfiguration");
    const validating = byKind("ValidatingWebhookConfiguration");
    expect(mutating.metadata.name).toBe("mutating-config");
    expect(validating.metadata.name).toBe("validating-config");
    expect(mutating.webhooks).toHaveLength(MUTATING_WEBHOOKS.length);
    expect(validating.webhooks).toHaveLength(VALIDATING_WEBHOOKS.length);
    expect(mutating.webhooks.length).toBe(8);
    expect(validating.webhooks.length).toBe(14);
    for (const config of [mutating, validating]) {
      expect(new Set(config.webhooks.map((w: any) => w.name)).size).toBe(config.webhooks.length);
    }
  });

  it("points every webhook at base URL + its own path, trusting the Karmada CA placeholder", () => {
    const all = [
      ...byKind("MutatingWebhookConfiguration").webhooks,
      ...byKind("ValidatingWebhookConfiguration").webhooks,
    ];
    const prefixes = {
      MutatingWebhookConfiguration: "/mutate-",
      ValidatingWebhookConfiguration: "/validate-",
    };
    for (const kind of Object.keys(prefixes) as (keyof typeof prefixes)[]) {
      for (const w of byKind(kind).webhooks)
        expect(w.clientConfig.url.startsWith(`${BASE}${prefixes[kind]}`)).toBe(true);
    }
    for (const w of all) {
      expect(w.clientConfig.caBundle).toBe(PLACEHOLDERS.caBundle);
      expect(w.failurePolicy).toBe("Fail");
      expect(w.admissionReviewVersions).toEqual(["v1"]);
      expect(["None", "NoneOnDryRun"]).toContain(w.sideEffects);
      expect(w.rules[0].apiVersions).toEqual(["*"]);
    }
    expect(new Set(all.map((w) => w.clientConfig.url)).size).toBe(all.length);
  });

  it("defaults to the host-namespace Service and accepts a hosts-mode base URL", () => {
    expect(defaultWebhookBaseUrl(testSettings({ namespace: "karmada-host" }))).toBe(BASE);
    const [mutating] = webhookConfigurations("https://10.0.0.5:8443/");
    expect((mutating as any).webhooks[0].clientConfig.url).toBe(
      `https://10.0.0.5:8443${MUTATING_WEBHOOKS[0].path}`,
    );
  });

  it.each(["http://karmada-webhook:443", "not a url", "https://x:443/?a=b"])("rejects base URL %s", (url) => {
    expect(() => webhookConfigurations(url)).toThrow(ConfigError);
    expect(() => webhookConfigurations(url)).toThrow(
      `invalid webhookBaseUrl: ${JSON.stringify(url)} is not an https URL without query or fragment (allowed: https://host[:port][/path])`,
    );
  });
});

describeUpstream(`webhookConfigurations against upstream ${KARMADA_MODULE.version}`, [KARMADA_MODULE], () => {
  let reference: Record<string, any>[];
  beforeAll(() => (reference = upstreamYaml(KARMADA_MODULE, "artifacts/deploy/webhook-configuration.yaml")));
  const comparable = (w: any) => ({
    name: w.name,
    path: new URL(w.clientConfig.url).pathname,
    rules: w.rules,
    sideEffects: w.sideEffects,
    timeoutSeconds: w.timeoutSeconds,
    objectSelector: w.objectSelector,
    failurePolicy: w.failurePolicy,
  });

  it.each(["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"])(
    "%s matches upstream's reference manifest webhook by webhook",
    (kind) => {
      const theirs = reference.find((d) => d.kind === kind)!;
      expect(byKind(kind).webhooks.map(comparable)).toEqual(theirs.webhooks.map(comparable));
    },
  );

  it("only names resources that have a CRD in the release bundle", () => {
    const crdFiles = readdirSync(join(upstreamModuleDir(KARMADA_MODULE), "charts/karmada/_crds/bases"), {
      recursive: true,
    }).map(String);
    const rules = [...MUTATING_WEBHOOKS, ...VALIDATING_WEBHOOKS].filter((w) => w.resources[0] !== "*");
    for (const w of rules) {
      expect(crdFiles.some((f) => f.endsWith(`${w.apiGroups[0]}_${w.resources[0]}.yaml`))).toBe(true);
    }
  });
});
