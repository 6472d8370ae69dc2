/**
 * The console's HTTP API over the Automation API: estates (the program's stacks) with their summaries,
 * previews of setting edits as per-object diffs, and operations (`up`, `refresh`, `destroy`) whose
 * progress streams as Server-Sent Events. Every `/api` request carries a bearer token; every
 * state-changing one is audited; everything sent is redacted; routes are described by their schemas,
 * from which the OpenAPI document is generated.
 */
import swagger from "@fastify/swagger";
import { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Stack } from "@pulumi/pulumi/automation";
import { summarizePreview } from "../../lib/preview/summary";
import type { PreviewStep } from "../../lib/preview/digest";
import { ConfigError } from "../../lib/validation/errors";
import { AuditLog, AuditRecord } from "./audit";
import { tokenName } from "./auth";
import { applyEdits, SettingEdit } from "./edits";
import { Estates, previewStepOf } from "./estates";
import { OperationKind, OperationRegistry, StackBusyError } from "./operations";
import { engineProblem, PROBLEM_CONTENT_TYPE, PROBLEM_TYPES, Problem, settingsProblem } from "./problems";
import { ProgressEvent, ProgressTracker } from "./progress";
import { Redactor } from "./redact";
import * as S from "./schemas";
import { ConsoleSettings } from "./settings";
import { PreviewSettings } from "./settingsFile";
import { serveWebConsole } from "./web";

/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = "/api/openapi.json";
/** Version prefix of every API route. */
const API_PREFIX = "/api/v1";

/** What the app is built from. */
export interface ConsoleApp {
  readonly app: FastifyInstance;
  readonly operations: OperationRegistry;
  readonly audit: AuditLog;
  /** Resolves once every operation started so far has ended (tests, shutdown). */
  idle(): Promise<void>;
  /** Stacks whose settings file a preview cut short (the console stopped) had left edited: put back. */
  readonly recoveredPreviews: readonly string[];
}

/** A problem answer in a route's schema. */
const problem = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref(S.Problem) } },
});

/** Problem answers of the routes, for their schemas. */
const PROBLEMS = {
  400: problem("The request does not match its schema"),
  401: problem("No bearer token of the console"),
  404: problem("No such stack or operation"),
  409: problem("The stack is busy: `runningOperation` is the operation holding it"),
  422: problem("Invalid settings: `fields` names each setting at fault"),
  502: problem("The engine failed"),
};

class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** The problem answer of an error thrown while handling a request. */
function problemOf(error: any): Problem {
  if (error instanceof ProblemError) return error.problem;
  if (error instanceof StackBusyError)
    return {
      type: PROBLEM_TYPES.stackBusy,
      title: "Stack busy",
      status: 409,
      detail: error.message,
      runningOperation: error.running,
    };
  if (error instanceof ConfigError) return settingsProblem(error);
  if (error?.validation || (typeof error?.statusCode === "number" && error.statusCode < 500))
    return {
      type: PROBLEM_TYPES.invalidRequest,
      title: "Invalid request",
      status: error.validation ? 400 : error.statusCode,
      detail: error.message,
    };
  return {
    type: PROBLEM_TYPES.internal,
    title: "Internal error",
    status: 500,
    detail: String(error?.message),
  };
}

const notFound = (detail: string) =>
  new ProblemError({ type: PROBLEM_TYPES.notFound, title: "Not found", status: 404, detail });

/** Builds the app (not listening). */
export async function buildConsoleApp(
  settings: ConsoleSettings,
  estates = new Estates(settings),
): Promise<ConsoleApp> {
  const app = Fastify({ logger: false, bodyLimit: 1 << 20 }).withTypeProvider<TypeBoxTypeProvider>();
  const operations = new OperationRegistry(settings.dataDir);
  const audit = new AuditLog(settings.dataDir);
  const previewSettings = new PreviewSettings(settings.programDir, settings.dataDir);
  // before anything reads a stack: a preview the console was stopped in left its edits in the settings
  const recoveredPreviews = previewSettings.recover();
  const running = new Set<Promise<void>>();
  /** The redactor of `stack`: the tokens and every secret the stack holds. */
  const redactorFor = async (stack?: Stack) =>
    new Redactor().add(
      ...settings.tokens.values(),
      ...(stack ? await estates.secrets(stack).catch(() => []) : []),
    );
  const baseRedactor = new Redactor().add(...settings.tokens.values());

  for (const schema of S.NAMED_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "pulumi-karmada console API",
        version: "1",
        description:
          "Estates (the stacks of one Pulumi program), previews of setting edits, and operations whose progress streams as Server-Sent Events. Every request needs a bearer token.",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  // every answer leaves through here: problems get their content type, and nothing secret leaves
  app.setErrorHandler((error: unknown, _request, reply) => {
    const problem = problemOf(error);
    void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(baseRedactor.value(problem));
  });

  app.addHook("onRequest", async (request: FastifyRequest & { who?: string }) => {
    if (!request.url.startsWith("/api/")) return;
    const who = tokenName(request.headers.authorization, settings.tokens);
    if (who === undefined)
      throw new ProblemError({
        type: PROBLEM_TYPES.unauthorized,
        title: "Unauthorized",
        status: 401,
        detail: "a bearer token of the console is required (Authorization: Bearer <token>)",
      });
    request.who = who;
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (reply.statusCode === 401) void reply.header("WWW-Authenticate", 'Bearer realm="pulumi-karmada"');
    return payload;
  });

  const who = (request: FastifyRequest) => (request as FastifyRequest & { who: string }).who;
  const requireStack = async (name: string): Promise<Stack> => {
    if (!(await estates.stackNames()).includes(name))
      throw notFound(`no stack ${JSON.stringify(name)} in the program`);
    return estates.stack(name);
  };
  const track = (body: () => Promise<void>) => {
    const run = body().finally(() => running.delete(run));
    running.add(run);
  };

  /**
   * Checks a request (`check`, then its setting edits) and claims the stack for it, before anything runs;
   * a refusal is audited and thrown (a problem answer).
   */
  const claim = async (
    audited: Omit<AuditRecord, "status" | "result">,
    stack: Stack,
    kind: OperationKind,
    edits: readonly SettingEdit[],
    check: () => void = () => undefined,
  ) => {
    try {
      check();
      applyEdits(await estates.settingsOf(stack), edits);
      return operations.begin(stack.name, kind, audited.who);
    } catch (e) {
      audit.append({ ...audited, status: problemOf(e).status, result: "refused" });
      throw e;
    }
  };

  /** The stack a state-changing request names; one the program does not have is a refusal, audited. */
  const requestedStack = async (audited: Omit<AuditRecord, "status" | "result">): Promise<Stack> => {
    try {
      return await requireStack(audited.stack!);
    } catch (e) {
      audit.append({ ...audited, status: problemOf(e).status, result: "refused" });
      throw e;
    }
  };

  /** Writes the changed settings into the stack (the edits were checked by applyEdits). */
  const writeEdits = async (stack: Stack, edits: readonly SettingEdit[] | undefined) => {
    if (!edits?.length) return [];
    const changed = applyEdits(await estates.settingsOf(stack), edits);
    for (const [key, value] of changed)
      await stack.setConfig(key, { value: JSON.stringify(value), secret: false });
    return [...changed.keys()];
  };

  /** Runs an engine command as operation `id`, its events redacted into the registry. */
  const runEngine = async (
    id: string,
    stack: Stack,
    kind: OperationKind,
    onStep?: (step: PreviewStep) => void,
  ): Promise<void> => {
    const redactor = await redactorFor(stack);
    const tracker = new ProgressTracker();
    const emit = (event: ProgressEvent) => operations.emit(id, redactor.value(event));
    emit(tracker.status("running"));
    const onEvent = (event: Parameters<ProgressTracker["consume"]>[0]) => {
      const step = onStep && previewStepOf(event);
      if (step) onStep!(step);
      for (const progress of tracker.consume(event)) emit(progress);
    };
    // never `debug` or verbose logs: the engine's debug output carries plaintext inputs
    const options = { onEvent, color: "never" as const };
    try {
      if (kind === "up") await stack.up(options);
      else if (kind === "refresh") await stack.refresh(options);
      else if (kind === "destroy") await stack.destroy(options);
      else await stack.preview(options);
      emit(tracker.status("succeeded"));
      operations.finish(id, "succeeded");
    } catch (e) {
      const message = redactor.text(engineMessage(e));
      emit(tracker.status("failed", message));
      operations.finish(id, "failed", message);
      throw new EngineRunError(message);
    }
  };

  app.get(
    `${API_PREFIX}/estates`,
    {
      schema: {
        operationId: "listEstates",
        summary: "The program's stacks with their summaries",
        response: {
          200: Type.Object({ estates: Type.Array(Type.Ref(S.EstateSummary)) }),
          401: PROBLEMS[401],
        },
      },
    },
    async () => {
      const names = await estates.stackNames();
      const summaries = await Promise.all(
        names.map(async (name) => {
          const stack = await estates.stack(name);
          const summary = await estates.summary(stack);
          const runningOperation = operations.runningOn(name);
          return (await redactorFor(stack)).value({
            ...summary,
            ...(runningOperation ? { runningOperation } : {}),
          });
        }),
      );
      return { estates: summaries };
    },
  );

  app.get(
    `${API_PREFIX}/estates/:stack`,
    {
      schema: {
        operationId: "getEstate",
        summary: "One estate: summary, settings (secrets by key only) and dependency picture",
        params: S.StackParams,
        response: { 200: Type.Ref(S.EstateDetail), 401: PROBLEMS[401], 404: PROBLEMS[404] },
      },
    },
    async (request) => {
      const stack = await requireStack(request.params.stack);
      const [summary, settingsList, graph] = await Promise.all([
        estates.summary(stack),
        estates.settingsOf(stack),
        estates.graph(stack),
      ]);
      const runningOperation = operations.runningOn(stack.name);
      return (await redactorFor(stack)).value({
        summary: { ...summary, ...(runningOperation ? { runningOperation } : {}) },
        settings: settingsList,
        graph,
      });
    },
  );

  app.post(
    `${API_PREFIX}/estates/:stack/preview`,
    {
      schema: {
        operationId: "previewEstate",
        summary: "Preview the stack with setting edits (not kept): the per-object diff",
        params: S.StackParams,
        body: S.PreviewRequest,
        response: { 200: Type.Ref(S.PreviewResult), ...PROBLEMS },
      },
    },
    async (request) => {
      const edits = request.body.edits ?? [];
      const keys = edits.map((e) => e.key);
      const base = {
        at: new Date().toISOString(),
        who: who(request),
        action: "preview",
        stack: request.params.stack,
      };
      const stack = await requestedStack({ ...base, configKeys: keys });
      // the stack is claimed so that no operation writes its settings while they hold the edits
      const record = await claim({ ...base, configKeys: keys }, stack, "preview", edits);
      const steps: PreviewStep[] = [];
      try {
        await previewSettings.withRestored(stack.name, async () => {
          await writeEdits(stack, edits);
          await runEngine(record.id, stack, "preview", (step) => steps.push(step));
        });
      } catch (e) {
        const problem = e instanceof EngineRunError ? engineProblem(e.message) : undefined;
        audit.append({
          ...base,
          configKeys: keys,
          operationId: record.id,
          status: problem?.status ?? 500,
          result: "failed",
        });
        if (problem) throw new ProblemError(problem);
        throw e;
      }
      audit.append({ ...base, configKeys: keys, operationId: record.id, status: 200, result: "succeeded" });
      const summary = summarizePreview({ steps });
      return (await redactorFor(stack)).value({ operationId: record.id, summary });
    },
  );

  app.post(
    `${API_PREFIX}/estates/:stack/operations`,
    {
      schema: {
        operationId: "startOperation",
        summary: "Start up, refresh or destroy; follow it at /operations/{id}/events",
        params: S.StackParams,
        body: S.OperationRequest,
        response: { 202: Type.Ref(S.OperationRecord), ...PROBLEMS },
      },
    },
    async (request, reply) => {
      const { kind, edits = [], confirm } = request.body;
      const base = {
        at: new Date().toISOString(),
        who: who(request),
        action: kind,
        stack: request.params.stack,
      };
      const keys = edits.map((e) => e.key);
      const stack = await requestedStack({ ...base, configKeys: keys });
      const record = await claim({ ...base, configKeys: keys }, stack, kind, edits, () => {
        if (edits.length > 0 && kind !== "up")
          throw new ConfigError("edits", `only an up takes setting edits, not ${kind}`, "kind: up");
        if (kind === "destroy" && confirm !== stack.name)
          throw new ConfigError(
            "confirm",
            "a destroy needs the stack's name typed again",
            JSON.stringify(stack.name),
          );
      });
      audit.append({ ...base, configKeys: keys, operationId: record.id, status: 202, result: "accepted" });
      const id = record.id;
      track(async () => {
        try {
          await writeEdits(stack, edits);
          await runEngine(id, stack, kind);
        } catch (e) {
          if (operations.get(id)?.status === "running") {
            const message = (await redactorFor(stack)).text((e as Error).message);
            operations.finish(id, "failed", message);
          }
        }
        const done = operations.get(id)!;
        audit.append({
          ...base,
          at: done.finishedAt!,
          configKeys: keys,
          operationId: id,
          status: 202,
          result: done.status,
        });
      });
      void reply.code(202).header("Location", `${API_PREFIX}/operations/${id}`);
      return record;
    },
  );

  app.get(
    `${API_PREFIX}/operations`,
    {
      schema: {
        operationId: "listOperations",
        summary: "Operations, newest first",
        querystring: Type.Object({ stack: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({ operations: Type.Array(Type.Ref(S.OperationRecord)) }),
          401: PROBLEMS[401],
        },
      },
    },
    async (request) => ({ operations: operations.list(request.query.stack) }),
  );

  app.get(
    `${API_PREFIX}/operations/:id`,
    {
      schema: {
        operationId: "getOperation",
        summary: "One operation's record",
        params: S.OperationParams,
        response: { 200: Type.Ref(S.OperationRecord), 401: PROBLEMS[401], 404: PROBLEMS[404] },
      },
    },
    async (request) => {
      const record = operations.get(request.params.id);
      if (!record) throw notFound(`no operation ${request.params.id}`);
      return record;
    },
  );

  app.get(
    `${API_PREFIX}/operations/:id/events`,
    {
      schema: {
        operationId: "streamOperationEvents",
        summary:
          "The operation's progress as Server-Sent Events (replayed from its start; ends when it ends)",
        params: S.OperationParams,
        produces: ["text/event-stream"],
        response: {
          200: {
            description:
              "`event: <kind>` and `data: <ProgressEvent JSON>` per event; the stream closes when the operation ends",
            content: { "text/event-stream": { schema: Type.Ref(S.ProgressEvent) } },
          },
          401: PROBLEMS[401],
          404: PROBLEMS[404],
        },
      },
    },
    async (request, reply) => streamEvents(request.params.id, operations, reply),
  );

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  serveWebConsole(app);

  return {
    app,
    operations,
    audit,
    recoveredPreviews,
    idle: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

/** An engine run that failed; its message is redacted. */
class EngineRunError extends Error {}

/** The useful part of an Automation API error: the engine's stderr when it has one. */
function engineMessage(e: unknown): string {
  const error = e as { stderr?: string; message?: string };
  const text = error.stderr?.trim() || error.message || String(e);
  return text.length > 8000 ? `${text.slice(0, 8000)}…` : text;
}

/** Streams operation `id`'s events as SSE until it ends or the client leaves. */
async function streamEvents(id: string, operations: OperationRegistry, reply: FastifyReply): Promise<void> {
  if (!operations.get(id)) throw notFound(`no operation ${id}`);
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
  });
  await new Promise<void>((resolve) => {
    let unsubscribe: () => void = () => undefined;
    const end = () => {
      unsubscribe();
      raw.end();
      resolve();
    };
    raw.on("close", end);
    unsubscribe = operations.subscribe(id, (event) => {
      if (event === undefined) return end();
      raw.write(`id: ${event.seq}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
    });
  });
}
