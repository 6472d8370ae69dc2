import { createHash } from "crypto";
import { ObservedService, plannedService, serviceProbeScript } from "../../hosts/drift";
import { renderScript, ScriptStep } from "../../hosts/script";
import { ServiceCommands, serviceCommands } from "../../hosts/serviceRunner";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { reportedVersionCommand } from "./binaries";
import { fingerprintFiles } from "./bundle";
import { HOST_FUNCTIONS, healthProbe } from "./functions";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";
import { serviceSpec } from "./serviceSpec";

/** `host port` pairs of the etcd client URLs, for a reachability check before karmada-apiserver starts. */
function etcdTargets(cp: ControlPlaneSettings): [string, number][] {
  return cp.etcd.endpoints.map((endpoint) => {
    const url = new URL(endpoint);
    return [url.hostname.replace(/^\[(.*)\]$/, "$1"), Number(url.port || 2379)];
  });
}

/** The runner's snippets for `component`'s service on `host`. */
function componentServiceCommands(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): ServiceCommands {
  return serviceCommands(settings.serviceManager, serviceSpec(cp, settings, host, component), host.root);
}

/** Seconds between two health probes while waiting for a component to become healthy. */
const HEALTH_POLL_SECONDS = 0.2;

/**
 * The step waiting until `component` answers its readiness probe on `host`, polling every
 * {@link HEALTH_POLL_SECONDS}; after `healthTimeoutSeconds` it fails with the last lines of the log.
 * `when` (a bash condition) limits it to some runs; the message says why it was skipped otherwise.
 */
function waitHealthyStep(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
  when?: { readonly condition: string; readonly skipped: string },
): ScriptStep {
  const files = componentHostFiles(settings, host, component);
  const probe = healthProbe(component, cp, host, files);
  const logTail =
    settings.serviceManager === "systemd"
      ? `{ journalctl -u ${shq(`${files.service}.service`)} -n 20 --no-pager 2>/dev/null || true; } >&2`
      : `{ tail -n 20 ${shq(files.logFile)} 2>/dev/null || true; } >&2`;
  const wait = [
    `deadline=$((SECONDS + ${settings.healthTimeoutSeconds}))`,
    `until pk_probe ${probe.args}; do`,
    `  if [ "\${SECONDS}" -ge "\${deadline}" ]; then`,
    `    ${logTail}`,
    `    pk_fail ${shq(`${component} is not healthy at ${probe.url} after ${settings.healthTimeoutSeconds}s (log above)`)}`,
    `  fi`,
    `  sleep ${HEALTH_POLL_SECONDS}`,
    `done`,
    `echo ${shq(`${component} healthy at ${probe.url}`)}`,
  ];
  return {
    name: `wait-${component}-healthy`,
    body: when
      ? [
          `if ${when.condition}; then`,
          ...wait.map((l) => `  ${l}`),
          `else`,
          `  echo ${shq(when.skipped)}`,
          `fi`,
        ].join("\n")
      : wait.join("\n"),
  };
}

/**
 * Runs one component on one host:
 * 1. the binary is the version asked for and the certificates are the ones Pulumi issued
 *    (`filesFingerprint`); naming both makes this script — and so the Pulumi command — change
 *    whenever the version, binary source or a certificate changes;
 * 2. the unit is written; the process is (re)started only when its binary, command line or files
 *    changed since it was started (fingerprint kept in the component's directory), else left alone;
 * 3. when it ran before on this host — a restart, a process found stopped, or one left alone — its
 *    readiness endpoint must answer within `healthTimeoutSeconds`, else the step fails with the last
 *    lines of its log: the next host's command (it depends on this one) restarts only then, so a
 *    change rolls host by host. The very first start waits for nothing: the hosts then start at
 *    once, and `<host>-ready-<component>` ({@link readyScript}) waits for health.
 */
export function serviceScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
  filesFingerprint: string,
): string {
  const files = componentHostFiles(settings, host, component);
  const spec = serviceSpec(cp, settings, host, component);
  const service = serviceCommands(settings.serviceManager, spec, host.root);
  const publicFiles = fingerprintFiles(component).map((f) => shq(`${files.pkiDir}/${f}`));
  const execHash = createHash("sha256").update(spec.exec.join("\n")).digest("hex");
  const binary = settings.binaries[component]!;
  const source =
    binary.artifact.kind === "url"
      ? `${binary.artifact.url} (sha256 ${binary.artifact.sha256})`
      : binary.artifact.path;
  const etcdCheck = etcdTargets(cp)
    .map(([address, port]) => `pk_port_open ${shq(address)} ${port} && reachable=yes`)
    .join("\n");
  return renderScript({
    host: host.name,
    purpose: `run ${component}`,
    functions: [HOST_FUNCTIONS],
    steps: [
      {
        name: `check-${component}-binary`,
        body: [
          `echo ${shq(`${component} runs ${binary.file} ${binary.version} from ${source}`)}`,
          reportedVersionCommand(binary.family, files.bin),
          `if [ "\${reported}" != ${shq(binary.version)} ]; then`,
          `  pk_fail "${files.bin} reports version \${reported:-unknown}, expected ${binary.version}: its install command has not run"`,
          `fi`,
        ].join("\n"),
      },
      {
        name: `check-${component}-files`,
        body: [
          `actual=$(cat ${publicFiles.join(" ")} | sha256sum | cut -d' ' -f1)`,
          `if [ "\${actual}" != ${shq(filesFingerprint)} ]; then`,
          `  pk_fail "certificates in ${files.pkiDir} differ from the ones issued for this run: they were changed on the host"`,
          `fi`,
        ].join("\n"),
      },
      ...(component === "karmada-apiserver"
        ? [
            {
              name: "check-etcd-reachable",
              body: [
                `reachable=no`,
                etcdCheck,
                `[ "\${reachable}" = yes ] || pk_fail ${shq(`no etcd endpoint is reachable from ${host.name}: ${cp.etcd.endpoints.join(", ")}`)}`,
              ].join("\n"),
            },
          ]
        : []),
      {
        name: `start-${component}`,
        body: [
          service.install,
          `wanted=$( { sha256sum ${shq(files.bin)} | cut -d' ' -f1; echo ${shq(execHash)}; echo ${shq(filesFingerprint)}; } | sha256sum | cut -d' ' -f1)`,
          `applied=$(cat ${shq(files.appliedFile)} 2>/dev/null || true)`,
          // it ran here before (a fingerprint is recorded): its health decides when the next host goes
          `if [ -n "\${applied}" ]; then ran_before=yes; else ran_before=no; fi`,
          `if ${service.isActive}; then`,
          `  if [ "\${service_changed}" = yes ] || [ "\${wanted}" != "\${applied}" ]; then`,
          `    echo "restarting ${component}: binary, flags or certificates changed"`,
          service.restart.replace(/^/gm, "    "),
          `  else`,
          `    echo "${component} already runs this binary, flags and certificates"`,
          `  fi`,
          `else`,
          service.start.replace(/^/gm, "  "),
          `fi`,
          `printf '%s\\n' "\${wanted}" > ${shq(files.appliedFile)}`,
        ].join("\n"),
      },
      waitHealthyStep(cp, settings, host, component, {
        condition: `[ "\${ran_before}" = yes ]`,
        skipped: `first start of ${component} on ${host.name}: its ready command waits until it is healthy`,
      }),
    ],
  });
}

/**
 * Waits until `component` is healthy on `host` (`<host>-ready-<component>`, after its service command):
 * what everything needing the component depends on, so that the first start of every host runs at
 * once and only this waits. It changes only with the probe (port, path, timeout).
 */
export function readyScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  return renderScript({
    host: host.name,
    purpose: `wait until ${component} is healthy`,
    functions: [HOST_FUNCTIONS],
    steps: [waitHealthyStep(cp, settings, host, component)],
  });
}

/** Stops the component and removes its unit (the binary and files go with their own commands). */
export function serviceRemoveScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const files = componentHostFiles(settings, host, component);
  const service = componentServiceCommands(cp, settings, host, component);
  return renderScript({
    host: host.name,
    purpose: `stop ${component}`,
    steps: [
      {
        name: `stop-${component}`,
        body: `${service.remove}\nrm -f ${shq(files.appliedFile)}\necho "${component} stopped"`,
      },
    ],
  });
}

/** What `component` on `host` should look like to a probe: running the planned command line (and unit). */
export function plannedComponentService(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): ObservedService {
  return plannedService(settings.serviceManager, serviceSpec(cp, settings, host, component));
}

/** Reads whether `component` runs on `host` and with which command line (lib/hosts/drift.ts); changes nothing. */
export function probeScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const spec = serviceSpec(cp, settings, host, component);
  return renderScript({
    host: host.name,
    purpose: `observe ${component}`,
    steps: [
      { name: `observe-${component}`, body: serviceProbeScript(settings.serviceManager, spec, host.root) },
    ],
  });
}

/**
 * Puts `component` on `host` back as planned after a change made by hand (it was stopped, or its unit
 * or command line edited): rewrites the unit, restarts the process with the planned command line and
 * waits until it is healthy. Certificates and binaries are the pki and install commands' business; the
 * service command's record of what it started (`.applied`) stays true, as the planned state is restored.
 */
export function repairScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const service = componentServiceCommands(cp, settings, host, component);
  return renderScript({
    host: host.name,
    purpose: `repair ${component}`,
    functions: [HOST_FUNCTIONS],
    steps: [
      {
        name: `restart-${component}`,
        body: [
          service.install,
          `echo "restarting ${component} as planned (it was stopped or changed on the host; unit rewritten: \${service_changed})"`,
          service.restart,
        ].join("\n"),
      },
      waitHealthyStep(cp, settings, host, component),
    ],
  });
}
