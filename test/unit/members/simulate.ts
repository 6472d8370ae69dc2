/**
 * Stand-ins for the controllers a real estate runs, on top of the recording mocks: the member's token
 * controller (fills ServiceAccount token Secrets), Karmada's CSR signer (signs agent CSRs) and the
 * member API's kube-system namespace (its UID is the cluster id). Values are derived from the resource
 * names so tests can tell members apart.
 */
import * as settings from "@pulumi/pulumi/runtime/settings";

const b64 = (text: string): string => Buffer.from(text).toString("base64");
export const unb64 = (text: string): string => Buffer.from(text, "base64").toString("utf8");

/** The token the simulated token controller writes into the Secret registered as `resourceName`. */
export const simulatedToken = (resourceName: string): string => `sa-token-${resourceName}`;
/** The member CA the simulated token controller writes as `ca.crt`. */
export const simulatedMemberCa = (provider: string): string =>
  `-----BEGIN CERTIFICATE-----\nmember-ca-${provider.split("::").pop()}\n-----END CERTIFICATE-----\n`;
/** The certificate the simulated signer issues for the CSR registered as `resourceName`. */
export const simulatedSignedCert = (resourceName: string): string =>
  `-----BEGIN CERTIFICATE-----\nsigned-${resourceName}\n-----END CERTIFICATE-----\n`;

/** A resource the program read (`Resource.get`) rather than registered. */
export interface SimulatedRead {
  readonly type: string;
  readonly name: string;
  readonly id: string;
  /** Provider reference `<urn>::<id>`. */
  readonly provider: string;
}

/** Reads since the last {@link simulateControllers} (the recording mocks only record registrations). */
export const simulatedReads: SimulatedRead[] = [];

/** Installs the simulation into the current recording mocks (call after `recordResources`/`buildEstate`). */
export function simulateControllers(): void {
  const mocks = (settings.getMonitor() as any).mocks;
  const original = mocks.newResource.bind(mocks);
  simulatedReads.length = 0;
  mocks.newResource = async (args: any) => {
    // the mock monitor passes a read's id here (a registration's import id, which we never set)
    if (args.id) {
      simulatedReads.push({ type: args.type, name: args.name, id: args.id, provider: args.provider ?? "" });
    }
    const result = await original(args);
    const state = { ...result.state };
    if (
      args.type === "kubernetes:core/v1:Secret" &&
      args.inputs.type === "kubernetes.io/service-account-token"
    ) {
      state.data = {
        token: b64(simulatedToken(args.name)),
        "ca.crt": b64(simulatedMemberCa(args.provider ?? "")),
      };
    }
    if (args.type === "kubernetes:core/v1:Namespace" && args.id === "kube-system") {
      state.metadata = { name: "kube-system", uid: `uid-${args.name}` };
    }
    if (args.type === "kubernetes:certificates.k8s.io/v1:CertificateSigningRequest") {
      state.status = { certificate: b64(simulatedSignedCert(args.name)) };
    }
    return { ...result, state };
  };
}
