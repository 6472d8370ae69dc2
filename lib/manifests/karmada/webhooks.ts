import { k8s } from "cdk8s-plus-33";
import type { KubeObject } from "../../kube/object";
import { objectNames } from "../../controlplane/names";
import { ControlPlaneSettings } from "../../controlplane/settings";
import { check } from "../../validation/errors";
import { PLACEHOLDERS } from "../placeholders";
import { synthChart } from "./chart";
import { KarmadaWebhook, MUTATING_WEBHOOKS, VALIDATING_WEBHOOKS } from "./webhook-catalog";

export * from "./webhook-catalog";

/** Names of the two admission configurations; karmadactl and the operator look them up by these names. */
const WEBHOOK_CONFIGURATION_NAMES = {
  mutating: "mutating-config",
  validating: "validating-config",
} as const;

/**
 * Base URL of karmada-webhook as karmada-apiserver reaches it. karmada-apiserver runs as a host-cluster
 * pod and resolves host DNS, so the host Service name works: `https://karmada-webhook.<ns>.svc:443`.
 */
export function defaultWebhookBaseUrl(settings: Pick<ControlPlaneSettings, "namespace">): string {
  return `https://${objectNames.workload("karmada-webhook")}.${settings.namespace}.svc:443`;
}

/** Checks and normalizes a webhook base URL (https, no query, no trailing slash). */
export function normalizeWebhookBaseUrl(url: string, field = "webhookBaseUrl"): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  check(
    parsed !== undefined && parsed.protocol === "https:" && !parsed.search && !parsed.hash,
    field,
    `${JSON.stringify(url)} is not an https URL without query or fragment`,
    "https://host[:port][/path]",
  );
  return url.replace(/\/+$/, "");
}

function webhookEntry(webhook: KarmadaWebhook, baseUrl: string) {
  return {
    name: webhook.name,
    rules: [
      {
        operations: [...webhook.operations],
        apiGroups: [...webhook.apiGroups],
        apiVersions: ["*"],
        resources: [...webhook.resources],
        scope: webhook.scope,
      },
    ],
    clientConfig: { url: `${baseUrl}${webhook.path}`, caBundle: PLACEHOLDERS.caBundle },
    ...(webhook.objectLabelExists
      ? { objectSelector: { matchExpressions: [{ key: webhook.objectLabelExists, operator: "Exists" }] } }
      : {}),
    failurePolicy: "Fail",
    sideEffects: webhook.sideEffects ?? "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: webhook.timeoutSeconds ?? 3,
  };
}

/**
 * `mutating-config` and `validating-config`, pointing every webhook at `webhookBaseUrl` + its path,
 * trusting the Karmada CA ({@link PLACEHOLDERS.caBundle}). They need the Karmada CRDs: with
 * `failurePolicy: Fail`, they must also not exist before karmada-webhook can answer, or they block
 * writes to Karmada resources.
 */
export function webhookConfigurations(webhookBaseUrl: string): KubeObject[] {
  const baseUrl = normalizeWebhookBaseUrl(webhookBaseUrl);
  const metadata = (name: string) => ({ name, labels: { app: objectNames.workload("karmada-webhook") } });
  return synthChart("karmada-webhooks", (chart) => {
    new k8s.KubeMutatingWebhookConfiguration(chart, WEBHOOK_CONFIGURATION_NAMES.mutating, {
      metadata: metadata(WEBHOOK_CONFIGURATION_NAMES.mutating),
      webhooks: MUTATING_WEBHOOKS.map((w) => webhookEntry(w, baseUrl)),
    });
    new k8s.KubeValidatingWebhookConfiguration(chart, WEBHOOK_CONFIGURATION_NAMES.validating, {
      metadata: metadata(WEBHOOK_CONFIGURATION_NAMES.validating),
      webhooks: VALIDATING_WEBHOOKS.map((w) => webhookEntry(w, baseUrl)),
    });
  });
}
