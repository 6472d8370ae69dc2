import * as fc from "fast-check";
import {
  ETCD_MEMBER_COUNTS,
  validateEtcdMemberCount,
  validateInteger,
  validatePort,
  validateReplicas,
} from "../../../lib/validation/numbers";
import { configError } from "./config-error";

describe("validatePort", () => {
  it("accepts exactly the integers 1–65535", () => {
    fc.assert(
      fc.property(fc.integer({ min: -100000, max: 100000 }), (n) => {
        if (n >= 1 && n <= 65535) expect(validatePort("apiServer.port", n)).toBe(n);
        else expect(configError(() => validatePort("apiServer.port", n)).field).toBe("apiServer.port");
      }),
    );
    expect(configError(() => validatePort("apiServer.port", 5443.5)).message).toBe(
      "invalid apiServer.port: 5443.5 is not a port (allowed: an integer 1–65535)",
    );
  });
});

describe("validateReplicas / validateInteger", () => {
  it("requires at least one replica unless told otherwise", () => {
    expect(validateReplicas("r", 1)).toBe(1);
    expect(configError(() => validateReplicas("components.karmada-scheduler.replicas", 0)).message).toBe(
      "invalid components.karmada-scheduler.replicas: 0 is out of range (allowed: an integer 1–2147483647)",
    );
    expect(validateReplicas("r", 0, 0)).toBe(0);
    expect(configError(() => validateReplicas("r", Number.NaN)).problem).toBe("NaN is out of range");
  });

  it("checks an upper bound when given", () => {
    expect(configError(() => validateInteger("x", 11, 1, 10)).allowed).toBe("an integer 1–10");
  });
});

describe("validateEtcdMemberCount", () => {
  it("accepts the odd counts and lists them when rejecting", () => {
    for (const n of ETCD_MEMBER_COUNTS) expect(validateEtcdMemberCount("etcd.replicas", n)).toBe(n);
    fc.assert(
      fc.property(
        fc
          .integer({ min: -10, max: 100 })
          .filter((n) => !(ETCD_MEMBER_COUNTS as readonly number[]).includes(n)),
        (n) => {
          expect(configError(() => validateEtcdMemberCount("etcd.replicas", n)).allowed).toBe("1, 3, 5, 7");
        },
      ),
    );
  });

  it("says why even counts are refused", () => {
    expect(configError(() => validateEtcdMemberCount("etcd.replicas", 4)).message).toBe(
      "invalid etcd.replicas: 4 is not a supported etcd member count (even counts add no fault tolerance) (allowed: 1, 3, 5, 7)",
    );
    expect(configError(() => validateEtcdMemberCount("etcd.replicas", 9)).problem).toBe(
      "9 is not a supported etcd member count",
    );
  });
});
