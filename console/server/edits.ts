/**
 * Setting edits a preview or an `up` carries: each sets one value at a path inside one `karmada:*` stack
 * setting. Applied to the stack's current settings and checked against the stack-file schema here, so a
 * bad edit is refused naming its field before the engine runs; secrets cannot be edited through the API.
 */
import {
  STACK_CONFIG_KEYS,
  STACK_CONFIG_NAMESPACE,
  SECRET_STACK_KEYS,
  StackConfig,
  parseStackConfig,
} from "../../stacks/config";
import { stackSchemaErrors } from "../../stacks/configSchema";
import { ConfigError, ConfigErrors, configErrorsOf, show } from "../../lib/validation/errors";
import type { SettingValue } from "./estates";

/** One edit: `value` at `path` inside setting `key` (the whole setting when `path` is empty). */
export interface SettingEdit {
  /** A stack setting, e.g. `karmada:controlPlane`. */
  readonly key: string;
  /** Object keys and list indexes inside it, e.g. `["components", "karmada-scheduler", "image"]`. */
  readonly path?: readonly (string | number)[];
  /** The new value (any JSON). */
  readonly value: unknown;
}

const NAMESPACE = `${STACK_CONFIG_NAMESPACE}:`;

/** `value` with `leaf` set at `path` (copied along the path; nothing else is touched). */
function setAt(value: unknown, path: readonly (string | number)[], leaf: unknown, field: string): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const list = value === undefined ? [] : value;
    if (!Array.isArray(list))
      throw new ConfigError(
        field,
        `${show(head)} indexes something that is not a list`,
        "a path through lists and objects",
      );
    if (!Number.isInteger(head) || head < 0 || head > list.length)
      throw new ConfigError(field, `index ${head} is out of range`, `0-${list.length}`);
    const copy = [...list];
    copy[head] = setAt(list[head], rest, leaf, `${field}[${head}]`);
    return copy;
  }
  const object = value === undefined ? {} : value;
  if (typeof object !== "object" || object === null || Array.isArray(object))
    throw new ConfigError(
      field,
      `${show(head)} names a field of something that is not an object`,
      "a path through lists and objects",
    );
  return {
    ...object,
    [head]: setAt((object as Record<string, unknown>)[head], rest, leaf, `${field}.${head}`),
  };
}

/**
 * The settings `edits` change, each with its new whole value, checked: known `karmada:*` keys, not
 * secrets, the result valid against the stack-file schema and the stack's own checks. Every problem is
 * reported together (ConfigErrors naming each field).
 */
export function applyEdits(
  current: readonly SettingValue[],
  edits: readonly SettingEdit[],
): Map<string, unknown> {
  const byKey = new Map(current.map((s) => [s.key, s]));
  const changed = new Map<string, unknown>();
  const problems: ConfigError[] = [];
  edits.forEach((edit, i) => {
    const field = `edits[${i}].key`;
    const name = edit.key.startsWith(NAMESPACE) ? edit.key.slice(NAMESPACE.length) : undefined;
    if (name === undefined || !(STACK_CONFIG_KEYS as readonly string[]).includes(name)) {
      problems.push(
        new ConfigError(
          field,
          `${show(edit.key)} is not a stack setting`,
          STACK_CONFIG_KEYS.map((k) => NAMESPACE + k).join(", "),
        ),
      );
      return;
    }
    if ((SECRET_STACK_KEYS as readonly string[]).includes(name) || byKey.get(edit.key)?.secret) {
      problems.push(
        new ConfigError(
          field,
          `${show(edit.key)} is a secret: the console never handles secret values`,
          "`pulumi config set --secret` on the stack",
        ),
      );
      return;
    }
    const before = changed.has(edit.key) ? changed.get(edit.key) : byKey.get(edit.key)?.value;
    try {
      changed.set(edit.key, setAt(before, edit.path ?? [], edit.value, edit.key));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(e);
    }
  });
  if (problems.length === 0) {
    const settings = Object.fromEntries(
      [...changed].map(([key, value]) => [key.slice(NAMESPACE.length), value]),
    );
    problems.push(...stackSchemaErrors(settings));
    // the stack's own checks over every plain setting as it would be (secrets are not read: placeholders)
    const all: Record<string, unknown> = {};
    for (const s of current)
      if (s.key.startsWith(NAMESPACE)) all[s.key.slice(NAMESPACE.length)] = s.secret ? "[secret]" : s.value;
    Object.assign(all, settings);
    if (problems.length === 0) {
      try {
        parseStackConfig(all as Record<keyof StackConfig, unknown>);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        problems.push(...configErrorsOf(e));
      }
    }
  }
  if (problems.length > 0) throw new ConfigErrors("setting edits", problems);
  return changed;
}
