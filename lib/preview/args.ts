import { ConfigError, show } from "../validation/errors";

/** What `scripts/preview-summary.ts` is asked to do. */
export interface SummaryArgs {
  /** Stack to preview (`pulumi preview --stack`). Required unless `from` is given. */
  readonly stack?: string;
  /** Read a saved `pulumi preview --json` file instead of running a preview. */
  readonly from?: string;
  /** Directory of the Pulumi project. @default "." */
  readonly cwd: string;
  /** Stack config file (`pulumi preview --config-file`). @default - Pulumi.<stack>.yaml */
  readonly configFile?: string;
  /** Where the preview JSON is written. @default "out/preview-<stack>.json" (not written with `from`) */
  readonly jsonOut?: string;
  /** Where the Markdown is written (it is always printed). @default "out/preview-<stack>.md" */
  readonly markdownOut?: string;
  /** Heading of the Markdown. @default "Pulumi preview — stack `<stack>`" */
  readonly title?: string;
}

/** Usage text of the script. */
export const SUMMARY_USAGE = [
  "usage: npm run preview:summary -- --stack <name> [--cwd <dir>] [--config-file <file>]",
  "                                  [--json-out <file>] [--markdown-out <file>] [--title <text>]",
  "       npm run preview:summary -- --from <preview.json> [--markdown-out <file>] [--title <text>]",
].join("\n");

const OPTIONS = [
  "--stack",
  "--from",
  "--cwd",
  "--config-file",
  "--json-out",
  "--markdown-out",
  "--title",
] as const;
type OptionName = (typeof OPTIONS)[number];
const KEY_OF: Readonly<Record<OptionName, keyof SummaryArgs>> = {
  "--stack": "stack",
  "--from": "from",
  "--cwd": "cwd",
  "--config-file": "configFile",
  "--json-out": "jsonOut",
  "--markdown-out": "markdownOut",
  "--title": "title",
};

/**
 * Parses the script's arguments (`--name value` or `--name=value`). Unknown options, missing values,
 * repeats, and neither or both of `--stack` / `--from` are ConfigErrors naming the option.
 */
export function parseSummaryArgs(argv: readonly string[]): SummaryArgs {
  const values: Partial<Record<keyof SummaryArgs, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith("--") && argv[i].includes("=")
        ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)]
        : [argv[i], undefined];
    if (!(OPTIONS as readonly string[]).includes(flag)) {
      throw new ConfigError("arguments", `unknown option ${show(flag)}`, OPTIONS.join(", "));
    }
    const key = KEY_OF[flag as OptionName];
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) {
      throw new ConfigError(flag, "needs a value");
    }
    if (values[key] !== undefined) throw new ConfigError(flag, "is given twice");
    values[key] = value;
  }
  if ((values.stack === undefined) === (values.from === undefined)) {
    throw new ConfigError(
      "--stack",
      "give exactly one of --stack (run a preview) and --from (read a saved one)",
    );
  }
  if (values.from !== undefined && values.configFile !== undefined) {
    throw new ConfigError("--config-file", "only applies when running a preview (--stack)");
  }
  const name = values.stack;
  return {
    ...values,
    cwd: values.cwd ?? ".",
    jsonOut: values.jsonOut ?? (name ? `out/preview-${name}.json` : undefined),
    markdownOut: values.markdownOut ?? `out/preview-${name ?? "summary"}.md`,
  };
}
