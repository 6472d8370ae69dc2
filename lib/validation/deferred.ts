import * as pulumi from "@pulumi/pulumi";

/**
 * `value` checked by `validate`, and what to build from instead of `value`. A plain string is checked
 * now (a ConfigError stops the program before anything registers). A secret arrives as an Output
 * (`config.requireSecret`) or Promise and is checked once it resolves, inside the deployment: the
 * returned Output (still secret) carries the checked value, so every resource built from it waits for
 * the check, and a bad value fails the `up` naming its field with nothing created from it. `validate`
 * never puts the value in its message.
 */
export function checkedWhenKnown(
  value: pulumi.Input<string>,
  validate: (known: string) => void,
): pulumi.Input<string> {
  if (!pulumi.Output.isInstance(value) && !(value instanceof Promise)) {
    validate(value);
    return value;
  }
  return pulumi.output(value).apply((known) => {
    validate(known);
    return known;
  });
}
