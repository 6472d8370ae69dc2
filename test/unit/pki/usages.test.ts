import { readFileSync } from "node:fs";
import {
  ALLOWED_USES,
  EXTENDED_KEY_USAGES,
  isExtendedKeyUsage,
  isKeyUsage,
  KEY_USAGES,
  validateAllowedUses,
} from "../../../lib/pki/usages";
import { configError } from "../validation/config-error";

/**
 * The names the installed @pulumi/tls documents as accepted, from its type declarations. The docs spell
 * them camelCase while the provider matches snake_case (see usages.ts), so they are converted.
 */
function documentedUses(file: string): string[] {
  const text = readFileSync(require.resolve(`@pulumi/tls/${file}`), "utf8");
  const list = /Accepted values: ((?:`\w+`(?:, )?)+)\./.exec(text)?.[1];
  if (!list) throw new Error(`no "Accepted values" list in @pulumi/tls/${file}`);
  return [...list.matchAll(/`(\w+)`/g)].map((m) => m[1].replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
}

describe("allowed uses", () => {
  it.each(["locallySignedCert.d.ts", "selfSignedCert.d.ts"])(
    "match what the installed tls SDK documents (%s)",
    (file) => {
      expect([...ALLOWED_USES].sort()).toEqual(documentedUses(file).sort());
    },
  );

  it("split into key usages and extended key usages without overlap", () => {
    expect(ALLOWED_USES).toEqual([...KEY_USAGES, ...EXTENDED_KEY_USAGES]);
    for (const use of ALLOWED_USES) expect(isKeyUsage(use)).toBe(!isExtendedKeyUsage(use));
  });

  it("accept a valid list and return it", () => {
    const uses = ["digital_signature", "key_encipherment", "server_auth"];
    expect(validateAllowedUses("certificates[0].allowedUses", uses)).toBe(uses);
  });

  it.each([["serverAuth"], ["server-auth"], ["Server_Auth"], ["tls_server"]])(
    "reject the misspelling %s the provider would silently drop, listing the allowed names",
    (bad) => {
      const error = configError(() =>
        validateAllowedUses("certificates[2].allowedUses", ["digital_signature", bad]),
      );
      expect(error.field).toBe("certificates[2].allowedUses[1]");
      expect(error.problem).toBe(`unknown usage ${JSON.stringify(bad)}`);
      expect(error.allowed?.split(", ")).toEqual(ALLOWED_USES);
    },
  );

  it("reject duplicates and empty lists", () => {
    expect(configError(() => validateAllowedUses("u", ["client_auth", "client_auth"])).problem).toBe(
      'duplicate usage "client_auth" (already at u[0])',
    );
    expect(configError(() => validateAllowedUses("u", [])).field).toBe("u");
  });
});
