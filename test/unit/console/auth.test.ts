import { tokenName } from "../../../console/server/auth";

const tokens = new Map([
  ["platform", "platform-token-0123456789abcdef"],
  ["ops", "ops-token-0123456789abcdef0123"],
]);

describe("bearer tokens", () => {
  it("names the token a request carries", () => {
    expect(tokenName("Bearer platform-token-0123456789abcdef", tokens)).toBe("platform");
    expect(tokenName("Bearer ops-token-0123456789abcdef0123", tokens)).toBe("ops");
  });

  it("knows no other token, scheme or form", () => {
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "bearer platform-token-0123456789abcdef",
      "Basic platform-token-0123456789abcdef",
      "Bearer platform-token-0123456789abcdeF",
      "Bearer platform-token-0123456789abcdef ",
      "Bearer platform-token-0123456789abcde",
    ])
      expect(tokenName(header, tokens)).toBeUndefined();
  });
});
