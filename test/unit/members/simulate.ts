/**
 * The recording mocks' stand-ins for the controllers a real estate runs (devkit/mocks.ts `controllers`):
 * the member's token controller, Karmada's CSR signer and the member API's kube-system namespace.
 */
import { currentRecordingMocks } from "../../../devkit/mocks";

export { simulatedMemberCa, simulatedSignedCert, simulatedToken } from "../../../devkit/mocks";

export const unb64 = (text: string): string => Buffer.from(text, "base64").toString("utf8");

/** Turns the stand-ins on in the recording mocks installed last (after `recordResources`/`buildEstate`). */
export function simulateControllers(): void {
  const mocks = currentRecordingMocks();
  if (!mocks) throw new Error("simulateControllers: install the recording mocks first (recordResources)");
  mocks.controllers = true;
}
