import * as fc from "fast-check";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CRON_FIELDS, CRON_MACROS, CronField, validateCronSchedule } from "../../../lib/validation/cron";
import {
  KUBERNETES_MODULE,
  describeUpstream,
  downloadModule,
  upstreamModuleDir,
} from "../../support/upstream";
import { configError } from "./config-error";

const FIELD = "backup.schedule";
const accepts = (schedule: unknown) => expect(() => validateCronSchedule(FIELD, schedule)).not.toThrow();
const rejection = (schedule: unknown) => configError(() => validateCronSchedule(FIELD, schedule));

// --- generators -------------------------------------------------------------------------------------

/** A value of the field: a number, or (where the field has names) its name in random case. */
function valueArb(spec: CronField, max: number): fc.Arbitrary<{ n: number; text: string }> {
  const numeric = fc.integer({ min: spec.min, max }).map((n) => ({ n, text: String(n) }));
  if (!spec.names) return numeric;
  const names = spec.names;
  const named = fc
    .tuple(fc.integer({ min: spec.min, max }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
    .map(([n, upper]) => ({
      n,
      text: [...names[n - spec.min]].map((c, i) => (upper[i] ? c : c.toLowerCase())).join(""),
    }));
  return fc.oneof(numeric, named);
}

/**
 * One list element of a field: `*`, `?` (day fields), a value, a range, or a step whose size lies within
 * its range. `max` narrows the field (day-of-month 1-28 exists in every month).
 */
function elementArb(spec: CronField, max = spec.max): fc.Arbitrary<string> {
  const value = valueArb(spec, max);
  const range = fc.tuple(value, value).map(([a, b]) => (a.n <= b.n ? [a, b] : [b, a]));
  const options: fc.Arbitrary<string>[] = [
    fc.constant("*"),
    value.map((v) => v.text),
    range.map(([a, b]) => `${a.text}-${b.text}`),
    fc.integer({ min: 1, max: spec.max - spec.min }).map((n) => `*/${n}`),
    range
      .filter(([a, b]) => b.n > a.n)
      .chain(([a, b]) => fc.integer({ min: 1, max: b.n - a.n }).map((n) => `${a.text}-${b.text}/${n}`)),
    value
      .filter((v) => v.n < spec.max)
      .chain((v) => fc.integer({ min: 1, max: spec.max - v.n }).map((n) => `${v.text}/${n}`)),
  ];
  if (spec.question) options.push(fc.constant("?"));
  return fc.oneof(...options);
}

const fieldArb = (spec: CronField, max?: number) =>
  fc.array(elementArb(spec, max), { minLength: 1, maxLength: 3 }).map((e) => e.join(","));

const separatorArb = fc.constantFrom(" ", "  ", "\t", " \t ");

/** Valid five-field schedules (day-of-month within 1-28, so that every month has the day). */
const scheduleArb = fc
  .tuple(
    fc.tuple(...CRON_FIELDS.map((spec) => fieldArb(spec, spec.name === "day-of-month" ? 28 : undefined))),
    fc.array(separatorArb, { minLength: 4, maxLength: 4 }),
  )
  .map(([fields, seps]) => ({
    fields,
    text: fields.map((f, i) => (i === 0 ? f : `${seps[i - 1]}${f}`)).join(""),
  }));

// --- tests ------------------------------------------------------------------------------------------

describe("validateCronSchedule", () => {
  it("accepts generated schedules of every form", () => {
    fc.assert(fc.property(scheduleArb, ({ text }) => accepts(text)));
  });

  it("accepts every documented macro, and the default and common schedules", () => {
    for (const macro of CRON_MACROS) accepts(macro);
    for (const s of [
      "0 */6 * * *",
      "*/15 9-17 * * MON-FRI",
      "0 0 1 jan,Jul ?",
      "5 4 ? * sun",
      "0 0 29 2 *",
    ]) {
      accepts(s);
    }
  });

  it("rejects a value out of range in any field, naming the field and its range", () => {
    const outOfRange = (spec: CronField) =>
      fc.oneof(
        fc.integer({ min: spec.max + 1, max: spec.max + 500 }),
        ...(spec.min > 0 ? [fc.constant(spec.min - 1)] : []),
      );
    const mutation = fc.tuple(scheduleArb, fc.integer({ min: 0, max: 4 })).chain(([schedule, index]) =>
      fc
        .tuple(
          outOfRange(CRON_FIELDS[index]),
          fc.constantFrom<(bad: number, spec: CronField) => string>(
            (bad) => String(bad),
            (bad, spec) => `${spec.min},${bad}`,
            (bad, spec) => `${spec.min}-${bad}`,
            (bad) => `${bad}/2`,
          ),
        )
        .map(([bad, form]) => ({ schedule, index, bad, field: form(bad, CRON_FIELDS[index]) })),
    );
    fc.assert(
      fc.property(mutation, ({ schedule, index, bad, field }) => {
        const fields = [...schedule.fields];
        fields[index] = field;
        const text = fields.join(" ");
        const spec = CRON_FIELDS[index];
        const error = rejection(text);
        expect(error.field).toBe(FIELD);
        expect(error.problem.startsWith(`${JSON.stringify(text)}: ${spec.name} ${bad} is outside `)).toBe(
          true,
        );
        expect(error.problem).toContain(`outside ${spec.min}-${spec.max}`);
        expect(error.allowed).toContain(`${spec.name} ${spec.min}-${spec.max}`);
      }),
    );
  });

  it("formats the message with the schedule, the field and what is allowed", () => {
    expect(rejection("0 25 * * *").message).toBe(
      'invalid backup.schedule: "0 25 * * *": hour 25 is outside 0-23 (allowed: hour 0-23, *, lists a,b, ranges a-b, steps */n, a/n or a-b/n)',
    );
    expect(rejection("0 0 * * 7").message).toBe(
      'invalid backup.schedule: "0 0 * * 7": day-of-week 7 is outside 0-6 (Kubernetes\' cron parser has no 7 for Sunday; use 0 or SUN) (allowed: day-of-week 0-6 or SUN-SAT (0 is Sunday), * or ?, lists a,b, ranges a-b, steps */n, a/n or a-b/n)',
    );
  });

  it("names the field of each malformed element", () => {
    const cases: [string, string][] = [
      ["*/0 * * * *", 'minute step 0 in "*/0" is not at least 1'],
      ["*/60 * * * *", 'minute step 60 in "*/60" is larger than the range 0-59 it steps through'],
      ["0 1-5/5 * * *", 'hour step 5 in "1-5/5" is larger than the range 1-5 it steps through'],
      ["0 */x * * *", 'hour step "x" in "*/x" is not a number'],
      ["0 5-2 * * *", "hour range 5-2 runs backwards (no wrap-around)"],
      ["0 0 1,,2 * *", 'day-of-month "1,,2" has an empty list entry'],
      ["0 0 * FOO *", 'month "FOO" is not a number or a name'],
      ["0 0 * JANUARY *", 'month "JANUARY" is not a number or a name'],
      ["0 0 * * MON-FRI-SAT", 'day-of-week "MON-FRI-SAT" has more than one -'],
      ["0 0 1/2/3 * *", 'day-of-month "1/2/3" has more than one /'],
      ["? 0 * * *", 'minute "?" is only allowed in day-of-month and day-of-week'],
      ["0 0 ?/2 * *", 'day-of-month "?/2": "?" takes no step'],
      ["0 *-5 * * *", 'hour "*" is not a number'],
      ["-5 0 * * *", 'minute "" is not a number'],
      ["0 0 * * +1", 'day-of-week "+1" is not a number or a name'],
    ];
    for (const [schedule, problem] of cases) {
      expect(rejection(schedule).problem).toBe(`${JSON.stringify(schedule)}: ${problem}`);
    }
  });

  it("refuses a day-of-month that none of the chosen months has, only when day-of-week is unrestricted", () => {
    expect(rejection("0 0 30 2 *").problem).toBe(
      '"0 0 30 2 *": day-of-month 30 never occurs in FEB, so the job would never run',
    );
    expect(rejection("0 0 31 APR,jun *").problem).toContain("day-of-month 31 never occurs in APR, JUN");
    // either day field matching is enough when both are restricted; a 31-day month has the day
    for (const s of ["0 0 30 2 MON", "0 0 31 4,5 *", "0 0 30,1 2 *", "0 0 * 2 *", "0 0 30 2 */2"]) accepts(s);
  });

  it("rejects other field counts, saying there is no seconds field", () => {
    expect(rejection("0 0 * *").problem).toBe(
      '"0 0 * *" has 4 fields, not 5 (minute hour day-of-month month day-of-week)',
    );
    expect(rejection("0 0 0 * * *").problem).toContain("has 6 fields, not 5");
    expect(rejection("0 0 0 * * *").problem).toContain("there is no seconds field");
    expect(rejection("daily").problem).toContain("has 1 field, not 5");
  });

  it("rejects macros Kubernetes does not document, wrong case, and whitespace around them", () => {
    expect(rejection("@every 1h").problem).toContain("@every is not supported");
    expect(rejection("@every 1h").allowed).toContain("@hourly");
    expect(rejection("@DAILY").problem).toBe('"@DAILY" is not a known macro (macros are lower case)');
    expect(rejection("@reboot").problem).toContain("is not a known macro");
    expect(rejection(" @daily").problem).toBe('" @daily" has whitespace around the macro');
    expect(rejection("@daily\n").problem).toContain("has whitespace around the macro");
  });

  it("rejects time-zone prefixes", () => {
    for (const prefix of ["TZ", "CRON_TZ"]) {
      const error = rejection(`${prefix}=UTC 0 * * * *`);
      expect(error.problem).toContain(`a ${prefix}= prefix is not allowed`);
    }
  });

  it("rejects non-strings and empty schedules", () => {
    for (const value of [undefined, null, 5, ["0", "*"], { minute: 0 }]) {
      const error = rejection(value);
      expect(error.problem).toBe(`${JSON.stringify(value) ?? "undefined"} is not a string`);
      expect(error.field).toBe(FIELD);
    }
    expect(rejection("").problem).toBe('"" is empty');
    expect(rejection(" \t ").problem).toBe('" \\t " is empty');
  });
});

// --- against Kubernetes' parser ---------------------------------------------------------------------

/**
 * What the API server decides for a new CronJob's `spec.schedule` (validateScheduleFormat: robfig/cron's
 * `ParseStandard` at the version Kubernetes' go.mod pins, with panics recovered, and no "TZ" anywhere),
 * for each of `schedules`; true where it accepts.
 */
function apiServerAccepts(schedules: readonly string[]): boolean[] {
  const goMod = readFileSync(join(upstreamModuleDir(KUBERNETES_MODULE), "go.mod"), "utf8");
  const version = /^\s*github\.com\/robfig\/cron\/v3 (v\S+)/m.exec(goMod)?.[1];
  if (!version) throw new Error("Kubernetes' go.mod names no github.com/robfig/cron/v3");
  downloadModule({ path: "github.com/robfig/cron/v3", version });
  const dir = mkdtempSync(join(tmpdir(), "pk-cron-"));
  try {
    writeFileSync(
      join(dir, "go.mod"),
      `module crontest\n\ngo 1.21\n\nrequire github.com/robfig/cron/v3 ${version}\n`,
    );
    writeFileSync(
      join(dir, "main.go"),
      `package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/robfig/cron/v3"
)

func parse(s string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	_, err = cron.ParseStandard(s)
	return err
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if s := in.Text(); parse(s) != nil || strings.Contains(s, "TZ") {
			fmt.Println("error")
		} else {
			fmt.Println("ok")
		}
	}
}
`,
    );
    // the module is in the cache now: build offline, without checksum lookups or toolchain switches
    const env = { ...process.env, GOPROXY: "off", GOSUMDB: "off", GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local" };
    execFileSync("go", ["build", "-o", "parse", "."], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    const out = execFileSync(join(dir, "parse"), { input: `${schedules.join("\n")}\n`, encoding: "utf8" });
    const verdicts = out.trim().split("\n");
    expect(verdicts).toHaveLength(schedules.length);
    return verdicts.map((v) => v === "ok");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ourVerdict = (schedule: string): boolean => {
  try {
    validateCronSchedule(FIELD, schedule);
    return true;
  } catch {
    return false;
  }
};

describeUpstream(
  "validateCronSchedule against the API server's schedule validation",
  [KUBERNETES_MODULE],
  () => {
    // Things the API server takes that are refused on purpose (see validateCronSchedule's doc comment).
    const deliberate = [
      "@every 1h",
      "*/100 * * * *",
      "1,,2 * * * *",
      "? * * * *",
      "0 0 30 2 *",
      "0 *-5 * * *",
      "0 0 * * +1",
      "0 0 1/40 * *",
    ];
    // Pieces of fields, valid and invalid, around every bound.
    const atom = fc.oneof(
      fc.integer({ min: 0, max: 65 }).map(String),
      fc.constantFrom("*", "?", "", "jan", "DEC", "Sun", "sat", "feb", "mo", "+1", "07", "TZ"),
    );
    const piece = fc.oneof(
      atom,
      fc.tuple(atom, atom).map(([a, b]) => `${a}-${b}`),
      fc.tuple(atom, atom).map(([a, n]) => `${a}/${n}`),
      fc.tuple(atom, atom, atom).map(([a, b, n]) => `${a}-${b}/${n}`),
    );
    // each field valid (any day-of-month) or a near miss, so that whole schedules land on both sides
    const noise = fc.sample(
      fc
        .tuple(
          ...CRON_FIELDS.map((spec) =>
            fc.oneof(
              { arbitrary: fieldArb(spec), weight: 3 },
              {
                arbitrary: fc.array(piece, { minLength: 1, maxLength: 2 }).map((p) => p.join(",")),
                weight: 1,
              },
            ),
          ),
        )
        .map((fields) => fields.join(" ")),
      { numRuns: 5000, seed: 42 },
    );
    const valid = fc.sample(scheduleArb, { numRuns: 1000, seed: 7 }).map((s) => s.text);
    const schedules = [...valid, ...noise, ...deliberate];
    let verdicts: boolean[] = [];
    beforeAll(() => {
      verdicts = apiServerAccepts(schedules);
    });

    it("accepts nothing the API server would reject", () => {
      // the near misses fall on both sides, for both validators
      expect(noise.filter(ourVerdict).length).toBeGreaterThan(50);
      expect(noise.filter((_, i) => verdicts[valid.length + i]).length).toBeGreaterThan(50);
      expect(noise.filter((s) => !ourVerdict(s)).length).toBeGreaterThan(50);
      const wrongly = schedules.filter((s, i) => ourVerdict(s) && !verdicts[i]);
      expect(wrongly).toEqual([]);
      // the generated schedules are all valid for Kubernetes too
      expect(valid.filter((_, i) => !verdicts[i])).toEqual([]);
    });

    it("departs from the API server only where documented", () => {
      const start = valid.length + noise.length;
      deliberate.forEach((s, i) => {
        expect(ourVerdict(s)).toBe(false);
        expect([s, verdicts[start + i]]).toEqual([s, true]);
      });
    });
  },
);
