/**
 * What a failed engine run says went wrong, first: a CommandError's message is the whole run's output
 * (progress, then diagnostics), and a CI log keeps only a failure's first lines — which are progress.
 */

/** A resource's header in the engine's `Diagnostics:` section: `  <type> (<name>):`. */
const DIAGNOSTIC_HEADER = /^ {2}(\S+) \((.+)\):$/;
/** An error line under a header: `    error: <message>`. */
const DIAGNOSTIC_ERROR = /^ {4}error: (.*)$/;

/** The longest an error is quoted: a failed host command's error holds its whole script. */
const MAX_ERROR_CHARS = 600;
const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)} …` : text);

/**
 * The errors of an engine run's output, each once, in order: from its `Diagnostics:` section as
 * `<resource name>: <message>` (continuation lines joined, each clipped), or, without one, every progress line that
 * says `error:`. Pure.
 */
export function engineErrorLines(output: string): string[] {
  const lines = output.split("\n");
  const found: string[] = [];
  let resource = "";
  let inDiagnostics = false;
  let current: string[] | undefined;
  const flush = () => {
    if (current) found.push(clip(current.join(" ")));
    current = undefined;
  };
  for (const line of lines) {
    if (line.startsWith("Diagnostics:")) {
      inDiagnostics = true;
      continue;
    }
    if (!inDiagnostics) continue;
    if (/^\S/.test(line)) {
      // the next section (Outputs:, Resources:, Duration:)
      flush();
      inDiagnostics = false;
      continue;
    }
    const header = DIAGNOSTIC_HEADER.exec(line);
    const error = DIAGNOSTIC_ERROR.exec(line);
    if (header) {
      flush();
      resource = header[2];
    } else if (error) {
      flush();
      // the stack's own "update failed" follows every failed run and names nothing
      if (error[1].trim() !== "update failed") current = [`${resource}: ${error[1].trim()}`];
    } else if (current && /^ {4}/.test(line)) {
      current.push(line.trim());
    } else {
      flush();
    }
  }
  flush();
  if (found.length === 0) found.push(...lines.filter((l) => /\berror:/.test(l)).map((l) => clip(l.trim())));
  return [...new Set(found)];
}

/**
 * Runs an engine command; when it fails with errors to name, rethrows with them at the top of the message
 * (the whole output after them, the original error as `cause`).
 */
export async function engineErrorsFirst<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const errors = engineErrorLines(message);
    if (errors.length === 0) throw e;
    throw new Error(`the engine reported:\n${errors.join("\n")}\n\n${message}`, { cause: e });
  }
}
