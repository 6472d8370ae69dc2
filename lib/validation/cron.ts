import { ConfigError, check, show } from "./errors";

/**
 * Cron schedules as a Kubernetes CronJob's `spec.schedule` takes them. The API server parses the schedule
 * with `cron.ParseStandard` of github.com/robfig/cron/v3 (v3.0.1 in Kubernetes 1.35:
 * pkg/apis/batch/validation/validation.go `validateScheduleFormat`), whose bounds are in its spec.go:
 * minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 (JAN-DEC), day-of-week 0-6 (SUN-SAT). robfig has
 * no 7 for Sunday, unlike Vixie cron, so 7 is rejected here too. Everything accepted here is accepted by
 * that parser; a few things it takes are refused because they are mistakes in practice (see
 * {@link validateCronSchedule}).
 */

/** One of the five fields of a cron schedule, in order. */
export interface CronField {
  /** Name used in messages: `minute`, `hour`, `day-of-month`, `month`, `day-of-week`. */
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Three-letter names (any case), the first standing for `min`. */
  readonly names?: readonly string[];
  /** Whether `?` ("no specific value") is allowed, as in Quartz-style day fields. */
  readonly question: boolean;
}

/** The five fields, with robfig/cron's bounds (spec.go `minutes`, `hours`, `dom`, `months`, `dow`). */
export const CRON_FIELDS: readonly CronField[] = [
  { name: "minute", min: 0, max: 59, question: false },
  { name: "hour", min: 0, max: 23, question: false },
  { name: "day-of-month", min: 1, max: 31, question: true },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
    question: false,
  },
  {
    name: "day-of-week",
    min: 0,
    max: 6,
    names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    question: true,
  },
];

/** The macros Kubernetes documents for CronJobs (robfig's descriptors, case-sensitive, minus `@every`). */
export const CRON_MACROS = [
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
] as const;

const SCHEDULE_FORM = `five fields like "0 */6 * * *", or ${CRON_MACROS.join(", ")}`;

// Longest month of each month number; February counts its leap day, which robfig finds within its
// five-year search, so "0 0 29 2 *" does run.
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function allowedFor(spec: CronField): string {
  const values = `${spec.min}-${spec.max}${spec.names ? ` or ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : ""}`;
  const sunday = spec.name === "day-of-week" ? " (0 is Sunday)" : "";
  const any = spec.question ? "* or ?" : "*";
  return `${spec.name} ${values}${sunday}, ${any}, lists a,b, ranges a-b, steps */n, a/n or a-b/n`;
}

/** What one field selects: its values, and whether robfig counts it as unrestricted (`*`, `?`, `*∕1`). */
interface ParsedField {
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

function parseField(schedule: string, fieldPath: string, spec: CronField, text: string): ParsedField {
  const fail = (problem: string): never => {
    throw new ConfigError(fieldPath, `${show(schedule)}: ${spec.name} ${problem}`, allowedFor(spec));
  };
  const value = (token: string): number => {
    if (/^[0-9]+$/.test(token)) {
      const n = Number(token);
      if (n < spec.min || n > spec.max) {
        const hint =
          spec.name === "day-of-week" && n === 7
            ? " (Kubernetes' cron parser has no 7 for Sunday; use 0 or SUN)"
            : "";
        fail(`${n} is outside ${spec.min}-${spec.max}${hint}`);
      }
      return n;
    }
    const index = spec.names?.indexOf(token.toUpperCase()) ?? -1;
    if (index < 0) fail(`${show(token)} is not a number${spec.names ? " or a name" : ""}`);
    return spec.min + index;
  };
  const values = new Set<number>();
  let star = false;
  for (const element of text.split(",")) {
    // robfig skips empty list entries; they are a typo, so they are refused.
    if (element === "") fail(`${show(text)} has an empty list entry`);
    const parts = element.split("/");
    if (parts.length > 2) fail(`${show(element)} has more than one /`);
    const [base, stepText] = parts;
    let start: number;
    let end: number;
    let wildcard = false;
    if (base === "*" || base === "?") {
      if (base === "?" && !spec.question) fail(`"?" is only allowed in day-of-month and day-of-week`);
      if (base === "?" && stepText !== undefined) fail(`${show(element)}: "?" takes no step`);
      [start, end, wildcard] = [spec.min, spec.max, true];
    } else {
      const bounds = base.split("-");
      if (bounds.length > 2) fail(`${show(element)} has more than one -`);
      // "*-5" is read by robfig as "*", silently dropping the bound; refused by value() below.
      start = value(bounds[0]);
      // robfig reads "a/n" as "a-max/n".
      end = bounds.length === 2 ? value(bounds[1]) : stepText !== undefined ? spec.max : start;
      if (start > end) fail(`range ${base} runs backwards (no wrap-around)`);
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^[0-9]+$/.test(stepText)) fail(`step ${show(stepText)} in ${show(element)} is not a number`);
      step = Number(stepText);
      if (step < 1) fail(`step 0 in ${show(element)} is not at least 1`);
      // robfig accepts any step; one longer than its range selects only the start, never what was meant.
      if (step > Math.max(end - start, 1)) {
        fail(`step ${step} in ${show(element)} is larger than the range ${start}-${end} it steps through`);
      }
    }
    for (let v = start; v <= end; v += step) values.add(v);
    // robfig's starBit: "*" or "?" not thinned by a step > 1 (it decides how day-of-month and
    // day-of-week combine).
    if (wildcard && step === 1) star = true;
  }
  return { values, star };
}

/**
 * Validates a CronJob schedule: five whitespace-separated fields (minute hour day-of-month month
 * day-of-week), each `*`, a value, a list `a,b`, a range `a-b`, or a step `*∕n`, `a∕n` (= `a-max∕n`) or
 * `a-b∕n`; names JAN-DEC and SUN-SAT in any case; `?` in the two day fields; or one of
 * {@link CRON_MACROS} exactly as written. The error names the field at fault.
 *
 * Stricter than Kubernetes where its parser accepts a mistake: `@every <duration>` (undocumented by
 * Kubernetes, counted from the CronJob's last run rather than the clock, and with no counterpart in the
 * hosts-mode backup, which takes `intervalMinutes`), `TZ=`/`CRON_TZ=` prefixes (rejected by the API
 * server for new CronJobs too), `?` outside the day fields, empty list entries, steps longer than their
 * range, and day-of-month values that no chosen month has (`0 0 30 2 *` would never run; the CronJob
 * controller then fails the schedule at runtime).
 */
export function validateCronSchedule(field: string, schedule: unknown): void {
  check(typeof schedule === "string", field, `${show(schedule)} is not a string`, SCHEDULE_FORM);
  check(schedule.trim() !== "", field, `${show(schedule)} is empty`, SCHEDULE_FORM);
  const tz = /^(CRON_TZ|TZ)=/.exec(schedule.trim());
  if (tz) {
    throw new ConfigError(
      field,
      `${show(schedule)}: a ${tz[1]}= prefix is not allowed (Kubernetes rejects time zones in spec.schedule; the schedule runs in kube-controller-manager's time zone)`,
      SCHEDULE_FORM,
    );
  }
  if (schedule.trim().startsWith("@")) {
    validateMacro(field, schedule);
    return;
  }
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== CRON_FIELDS.length) {
    const seconds = parts.length === 6 ? "; there is no seconds field" : "";
    throw new ConfigError(
      field,
      `${show(schedule)} has ${parts.length} field${parts.length === 1 ? "" : "s"}, not 5 (minute hour day-of-month month day-of-week)${seconds}`,
      SCHEDULE_FORM,
    );
  }
  const [, , dom, month, dow] = CRON_FIELDS.map((spec, i) => parseField(schedule, field, spec, parts[i]));
  checkDayExists(field, schedule, dom, month, dow);
}

function validateMacro(field: string, schedule: string): void {
  const macro = schedule.trim();
  if (macro === "@every" || macro.startsWith("@every ")) {
    throw new ConfigError(
      field,
      `${show(schedule)}: @every is not supported (Kubernetes does not document it and counts it from the last run, not the clock); use a step such as "0 */6 * * *"`,
      SCHEDULE_FORM,
    );
  }
  check(
    (CRON_MACROS as readonly string[]).includes(macro),
    field,
    `${show(schedule)} is not a known macro (macros are lower case)`,
    SCHEDULE_FORM,
  );
  // robfig matches descriptors verbatim: " @daily" or "@daily " fails on the API server.
  check(macro === schedule, field, `${show(schedule)} has whitespace around the macro`, SCHEDULE_FORM);
}

function checkDayExists(
  field: string,
  schedule: string,
  dom: ParsedField,
  month: ParsedField,
  dow: ParsedField,
): void {
  // With both day fields restricted, robfig runs on either; with day-of-month "*", every week has each
  // weekday. Only a restricted day-of-month with an unrestricted day-of-week can select nothing.
  if (dom.star || !dow.star) return;
  const firstDay = Math.min(...dom.values);
  const months = [...month.values].sort((a, b) => a - b);
  if (months.some((m) => MONTH_DAYS[m - 1] >= firstDay)) return;
  const names = months.map((m) => CRON_FIELDS[3].names?.[m - 1]).join(", ");
  throw new ConfigError(
    field,
    `${show(schedule)}: day-of-month ${[...dom.values].sort((a, b) => a - b).join(",")} never occurs in ${names}, so the job would never run`,
    "a day-of-month that exists in the chosen months",
  );
}
