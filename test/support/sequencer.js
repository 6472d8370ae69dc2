/**
 * The order jest hands test files to its workers: the longest e2e suites first (measured in CI, see
 * docs/testbed.md#ci-time), so that two workers finish together instead of one waiting on a long suite
 * started last; the rest (unit suites, short e2e suites) in jest's own order after them.
 */
const path = require("path");
const Sequencer = require("@jest/test-sequencer").default;

/** e2e suites by the time they take, longest first (file names without `.test.ts`). */
const LONGEST_FIRST = [
  "binary",
  "library-upgrade",
  "containerized",
  "multi-language",
  "readme-containerized",
  "package-codegen",
  "etcd-hosts",
  "etcd-hosts-backup",
  "package-adoption",
  "interruption",
  "member-objects",
  "lab",
];

const rank = (test) => {
  const i = LONGEST_FIRST.indexOf(path.basename(test.path, ".test.ts"));
  return i < 0 ? LONGEST_FIRST.length : i;
};

class LongestFirst extends Sequencer {
  async sort(tests) {
    // Array.prototype.sort is stable: jest's order is kept among the suites not listed
    return [...(await super.sort(tests))].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongestFirst;
