/**
 * The console API with the real engine: a program shaped like an estate (test/fixtures/console-program)
 * driven only through the HTTP API and its typed client — estates, a preview of one image edit as the
 * per-object diff, `up` with its events streamed, one operation per stack (409), setting errors as
 * problem+json naming the setting (checked before the engine, and from the program's own error), the
 * audit log, and no secret in any response, event stream or audit record.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConsoleApiError, ConsoleClient, Fetch, ProgressEvent } from "../../console/client";
import { e2eTier } from "../../devkit/engine/tier";
import {
  CONSOLE_TOKENS,
  ConsoleFixture,
  FIXTURE_SSH_KEY,
  fixtureImage,
  startConsoleFixture,
} from "../support/consoleFixture";

jest.setTimeout(600_000);

const tier = e2eTier("console API with the real engine (test/e2e/console-api.test.ts)", {
  plugins: ["random"],
});

const TOKEN = CONSOLE_TOKENS.ci;
const OTHER_TOKEN = CONSOLE_TOKENS.other;
const SSH_KEY = FIXTURE_SSH_KEY;
const IMAGE = fixtureImage;

tier.describe("console API", () => {
  let fixture: ConsoleFixture;
  let client: ConsoleClient;
  let baseUrl: string;
  let programDir: string;
  /** The estate's secret (its admin kubeconfig's token), read past the API. */
  let etcdToken = "";
  /** Every answer the client received, for the secret scan (an event stream's once it has ended). */
  const received: Promise<{ what: string; text: string }>[] = [];
  /** The global fetch, keeping a copy of each answer's whole text. */
  const recordingFetch: Fetch = async (input, init) => {
    const response = await fetch(input, init);
    const what = `${init.method ?? "GET"} ${input.pathname}${input.search} ${response.status}`;
    received.push(
      response
        .clone()
        .text()
        .then((text) => ({ what, text })),
    );
    return response;
  };
  const console_ = () => fixture.console;

  beforeAll(async () => {
    fixture = await startConsoleFixture("pk-console-");
    ({ baseUrl, programDir } = fixture);
    client = new ConsoleClient(baseUrl, TOKEN, recordingFetch);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  /** The problem answer `call` is refused with. */
  async function refusal(call: Promise<unknown>): Promise<ConsoleApiError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConsoleApiError);
    return error as ConsoleApiError;
  }

  /** Runs an operation through the API and collects its whole event stream. */
  async function operate(request: Parameters<ConsoleClient["startOperation"]>[1]) {
    const record = await client.startOperation("dev", request);
    const events: ProgressEvent[] = [];
    for await (const event of client.events(record.id)) events.push(event);
    return { record, events, done: await client.getOperation(record.id) };
  }

  it("refuses requests without a token of the console, as problem+json", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-wrong-token-wrong", `Basic ${TOKEN}`]) {
      const response = await fetch(`${baseUrl}/api/v1/estates`, {
        headers: authorization ? { Authorization: authorization } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ status: 401, title: "Unauthorized" });
    }
    // the OpenAPI document is behind the token too
    expect((await fetch(`${baseUrl}/api/openapi.json`)).status).toBe(401);
    const document = await fetch(`${baseUrl}/api/openapi.json`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("lists the stack, not yet deployed", async () => {
    const { estates } = await client.listEstates();
    expect(estates).toEqual([expect.objectContaining({ stack: "dev", deployed: false, members: [] })]);
  });

  it("up: 202 with the operation, its events streamed step by step to the end, one operation per stack", async () => {
    const record = await client.startOperation("dev", { kind: "up" });
    expect(record).toMatchObject({ stack: "dev", kind: "up", status: "running", requestedBy: "ci" });
    // a second operation while it runs: 409 naming the running one
    const second = await refusal(client.startOperation("dev", { kind: "refresh" }));
    expect(second.status).toBe(409);
    expect(second.problem.runningOperation).toMatchObject({ id: record.id, kind: "up" });
    const events: ProgressEvent[] = [];
    for await (const event of client.events(record.id)) events.push(event);
    expect(events[0]).toMatchObject({ kind: "status", status: "running" });
    expect(events.at(-1)).toMatchObject({ kind: "status", status: "succeeded" });
    // numbered in order, every step that started ended, with its duration
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const steps = events.filter((e) => e.kind === "step");
    const created = steps.filter((e) => e.op === "create" && e.status === "done");
    expect(created.map((e) => e.resource!.name)).toEqual(
      expect.arrayContaining(["etcd-token", "karmada-scheduler", "karmada-webhook", "karmada-ssh"]),
    );
    for (const end of created) {
      expect(end.durationMs).toBeGreaterThanOrEqual(0);
      expect(steps).toContainEqual(expect.objectContaining({ status: "started", resource: end.resource }));
    }
    const summary = events.find((e) => e.kind === "summary")!;
    // the engine's summary counts every created resource but the providers
    const createdResources = created.filter((e) => !e.resource!.type.startsWith("pulumi:providers:"));
    expect(summary.changes!.create).toBe(createdResources.length);
    // the result is kept; a late subscriber replays the same stream
    expect(await client.getOperation(record.id)).toMatchObject({
      status: "succeeded",
      changes: { create: createdResources.length },
    });
    const outputs = await fixture.stack.outputs();
    etcdToken = /token: ([A-Za-z0-9]{32})/.exec(String(outputs.adminKubeconfig.value))![1];
    const replay: ProgressEvent[] = [];
    for await (const event of client.events(record.id)) replay.push(event);
    expect(replay).toEqual(events);
  });

  it("summarizes the estate: endpoint, members (Ready read from Karmada), certificates, the dependency picture, settings", async () => {
    const detail = await client.getEstate("dev");
    expect(detail.summary).toMatchObject({
      stack: "dev",
      deployed: true,
      apiEndpoint: "https://127.0.0.1:9",
    });
    // the fixture's endpoint has no Karmada behind it: Unknown, and why
    expect(detail.summary.members).toEqual([
      { name: "member1", mode: "Push", ready: "Unknown", reason: expect.stringMatching(/karmada-apiserver/) },
      { name: "member2", mode: "Pull", ready: "Unknown", reason: expect.stringMatching(/karmada-apiserver/) },
    ]);
    expect(detail.summary.certificates.map((c) => c.name)).toEqual(["karmada-apiserver", "karmada-ca"]);
    expect(detail.summary.certificates[0].daysLeft).toBeGreaterThan(0);
    const names = Object.fromEntries(detail.graph.nodes.map((n) => [n.name, n.urn]));
    expect(Object.keys(names).sort()).toEqual(["etcd", "karmada"]);
    expect(detail.graph.edges).toEqual([{ from: names.karmada, to: names.etcd }]);
    expect(detail.settings).toContainEqual({ key: "karmada:sshPrivateKey", secret: true });
  });

  it("previews one image edit: exactly that object, the settings file untouched", async () => {
    const settingsFile = path.join(programDir, "Pulumi.dev.yaml");
    const before = fs.readFileSync(settingsFile, "utf8");
    const { summary } = await client.preview("dev", [
      {
        key: "karmada:controlPlane",
        path: ["components", "scheduler", "image"],
        value: IMAGE("karmada-scheduler", "v1.18.3"),
      },
    ]);
    expect(summary.components.map((c) => c.label)).toEqual(["KarmadaControlPlane karmada"]);
    expect(summary.components[0].changes).toEqual([
      expect.objectContaining({ name: "karmada-scheduler", kind: "replace", reasons: ["keepers"] }),
    ]);
    expect(summary.totals).toEqual({ create: 0, update: 0, replace: 1, delete: 0, other: 0 });
    expect(fs.readFileSync(settingsFile, "utf8")).toBe(before);
  });

  it("refuses bad edits before the engine runs, naming the setting; secrets are not editable", async () => {
    const refused = await refusal(
      client.preview("dev", [
        { key: "karmada:controlPlane", path: ["components", "scheduler", "replicas"], value: "three" },
        { key: "karmada:sshPrivateKey", value: "x" },
        { key: "karmada:nonsense", value: 1 },
      ]),
    );
    expect(refused.status).toBe(422);
    expect(refused.problem.fields!.map((f: { field: string }) => f.field)).toEqual([
      "edits[1].key",
      "edits[2].key",
    ]);
    const typed = await refusal(
      client.preview("dev", [
        { key: "karmada:controlPlane", path: ["components", "scheduler", "replicas"], value: "three" },
      ]),
    );
    expect(typed.status).toBe(422);
    expect(typed.problem.fields![0].field).toBe("karmada:controlPlane.components.scheduler.replicas");
    const missing = await refusal(client.preview("no-such-stack"));
    expect(missing.status).toBe(404);
  });

  it("maps the program's own setting error to problem+json naming the setting, and keeps nothing", async () => {
    const failed = await refusal(
      client.preview("dev", [
        { key: "karmada:controlPlane", path: ["components", "webhook", "image"], value: "Not An Image" },
      ]),
    );
    expect(failed.status).toBe(422);
    expect(failed.problem.fields).toEqual([
      expect.objectContaining({ field: "karmada:controlPlane.components.webhook.image" }),
    ]);
    const [latest] = (await client.listOperations("dev")).operations;
    expect(latest).toMatchObject({ kind: "preview", status: "failed" });
  });

  it("redacts what a careless program leaks: its warnings and its failure carry the key, the API sends [secret]", async () => {
    const leaked = await refusal(
      client.preview("dev", [
        { key: "karmada:controlPlane", path: ["featureGates"], value: { ConsoleLeakProbe: true } },
      ]),
    );
    expect(leaked.status).toBe(502);
    expect(leaked.problem.detail).toContain("[secret]");
    const [latest] = (await client.listOperations("dev")).operations;
    const events: ProgressEvent[] = [];
    for await (const event of client.events(latest.id)) events.push(event);
    const probe = events.filter((e) => e.kind === "diagnostic" && e.message!.startsWith("probe:"));
    expect(probe.map((e) => [e.severity, e.message])).toEqual([["warning", "probe: the key is [secret]"]]);
  });

  it("up with the edit keeps it; a preview after shows no change", async () => {
    const { done, events } = await operate({
      kind: "up",
      edits: [
        {
          key: "karmada:controlPlane",
          path: ["components", "scheduler", "image"],
          value: IMAGE("karmada-scheduler", "v1.18.3"),
        },
      ],
    });
    expect(done.status).toBe("succeeded");
    expect(
      events
        .filter((e) => e.kind === "step" && e.status === "done" && e.op === "replace")
        .map((e) => e.resource!.name),
    ).toEqual(["karmada-scheduler"]);
    const { summary } = await client.preview("dev");
    expect(summary.totals).toEqual({ create: 0, update: 0, replace: 0, delete: 0, other: 0 });
  });

  it("destroy needs the stack's name typed again", async () => {
    const refused = await refusal(client.startOperation("dev", { kind: "destroy" }));
    expect(refused.status).toBe(422);
    expect(refused.problem.fields![0]).toMatchObject({ field: "confirm" });
    const { done } = await operate({ kind: "destroy", confirm: "dev" });
    expect(done.status).toBe("succeeded");
    expect((await client.listEstates()).estates[0].deployed).toBe(false);
  });

  it("audits every state-changing request: who, what, when, result — no values", () => {
    const records = console_().audit.read();
    expect(records.map((r) => `${r.action} ${r.result}`)).toEqual([
      "up accepted",
      "refresh refused",
      "up succeeded",
      "preview succeeded",
      "preview refused",
      "preview refused",
      "preview refused",
      "preview failed",
      "preview failed",
      "up accepted",
      "up succeeded",
      "preview succeeded",
      "destroy refused",
      "destroy accepted",
      "destroy succeeded",
    ]);
    // each refusal with the status it was answered with
    expect(
      records.filter((r) => r.result === "refused").map((r) => `${r.action} ${r.stack} ${r.status}`),
    ).toEqual([
      "refresh dev 409",
      "preview dev 422",
      "preview dev 422",
      "preview no-such-stack 404",
      "destroy dev 422",
    ]);
    for (const record of records) {
      expect(record.who).toBe("ci");
      expect(Date.parse(record.at)).not.toBeNaN();
    }
    expect(fs.statSync(console_().audit.file).mode & 0o777).toBe(0o600);
  });

  it("sent no secret: no token, key or kubeconfig credential in any answer, event stream or audit record", async () => {
    expect(etcdToken).toMatch(/^[A-Za-z0-9]{32}$/);
    const answers = await Promise.all(received);
    const texts = [...answers, { what: "audit log", text: fs.readFileSync(console_().audit.file, "utf8") }];
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => /\/events 200$/.test(a.what)).length).toBeGreaterThan(0);
    const secrets = [
      TOKEN,
      OTHER_TOKEN,
      SSH_KEY,
      ...SSH_KEY.split("\n").slice(1, 3),
      Buffer.from(SSH_KEY).toString("base64"),
    ];
    secrets.push(etcdToken);
    // each leak named by the answer it was in and the secret's place in the list (never the secret itself)
    const leaks = texts.flatMap(({ what, text }) => [
      ...secrets.flatMap((secret, i) => (text.includes(secret) ? [`${what}: secret ${i}`] : [])),
      ...(/PRIVATE KEY-----/.test(text) ? [`${what}: a private key`] : []),
    ]);
    expect(leaks).toEqual([]);
  });
});
