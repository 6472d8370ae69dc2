/**
 * The API's request and response schemas (TypeBox): fastify validates requests against them and the
 * OpenAPI document (console/openapi.json) is generated from them — there is no other description of the
 * API and no hand-written validation.
 */
import { Type } from "@sinclair/typebox";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Optional(t);

export const StackParams = Type.Object({
  stack: Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$", description: "Stack name" }),
});

export const OperationParams = Type.Object({
  id: Type.String({ format: "uuid", description: "Operation id" }),
});

const FieldProblem = Type.Object(
  {
    field: Type.String({
      description: "The setting at fault, e.g. `karmada:controlPlane.components.karmada-scheduler.image`",
    }),
    problem: Type.String(),
    allowed: Type.Optional(Type.String({ description: "What the setting may be" })),
  },
  { $id: "FieldProblem" },
);

const OperationKind = Type.Union([Type.Literal("up"), Type.Literal("refresh"), Type.Literal("destroy")], {
  $id: "OperationKind",
});

export const OperationRecord = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    stack: Type.String(),
    kind: Type.Union([
      Type.Literal("preview"),
      Type.Literal("up"),
      Type.Literal("refresh"),
      Type.Literal("destroy"),
    ]),
    requestedBy: Type.String({ description: "Name of the token that started it" }),
    startedAt: Type.String({ format: "date-time" }),
    finishedAt: Nullable(Type.String({ format: "date-time" })),
    status: Type.Union([Type.Literal("running"), Type.Literal("succeeded"), Type.Literal("failed")]),
    changes: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), { description: "Resources per engine operation" }),
    ),
    error: Type.Optional(Type.String({ description: "Why it failed (secrets removed)" })),
  },
  { $id: "OperationRecord" },
);

export const Problem = Type.Object(
  {
    type: Type.String({ format: "uri" }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    fields: Type.Optional(Type.Array(Type.Ref(FieldProblem))),
    runningOperation: Type.Optional(Type.Ref(OperationRecord)),
  },
  { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)" },
);

const MemberStatus = Type.Object(
  {
    name: Type.String(),
    mode: Type.String({ description: "Push or Pull" }),
    ready: Type.Union([Type.Literal("True"), Type.Literal("False"), Type.Literal("Unknown")], {
      description: "The Cluster's Ready condition, read from Karmada",
    }),
    reason: Type.Optional(Type.String()),
  },
  { $id: "MemberStatus" },
);

const CertificateStatus = Type.Object(
  {
    name: Type.String(),
    notAfter: Type.String({ format: "date-time" }),
    daysLeft: Type.Integer(),
  },
  { $id: "CertificateStatus" },
);

export const EstateSummary = Type.Object(
  {
    stack: Type.String(),
    deployed: Type.Boolean(),
    apiEndpoint: Type.Optional(Type.String()),
    members: Type.Array(Type.Ref(MemberStatus)),
    certificates: Type.Array(Type.Ref(CertificateStatus)),
    lastUpdate: Type.Optional(Type.String()),
    resourceCount: Type.Optional(Type.Integer()),
    runningOperation: Type.Optional(Type.Ref(OperationRecord)),
  },
  { $id: "EstateSummary" },
);

const SettingValue = Type.Object(
  {
    key: Type.String(),
    secret: Type.Boolean(),
    value: Type.Optional(Type.Unknown({ description: "Absent for a secret" })),
  },
  { $id: "SettingValue" },
);

const DependencyGraph = Type.Object(
  {
    nodes: Type.Array(Type.Object({ urn: Type.String(), type: Type.String(), name: Type.String() })),
    edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String() }), {
      description: "`from` waits for `to`",
    }),
  },
  { $id: "DependencyGraph" },
);

export const EstateDetail = Type.Object(
  {
    summary: Type.Ref(EstateSummary),
    settings: Type.Array(Type.Ref(SettingValue)),
    graph: Type.Ref(DependencyGraph),
  },
  { $id: "EstateDetail" },
);

const SettingEdit = Type.Object(
  {
    key: Type.String({ description: "A stack setting, e.g. `karmada:controlPlane`" }),
    path: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Integer({ minimum: 0 })]), {
        description: "Keys and indexes inside the setting; empty or absent: the whole setting",
      }),
    ),
    value: Type.Unknown({ description: "The new value" }),
  },
  { $id: "SettingEdit", additionalProperties: false },
);

const ChangeCounts = Type.Object({
  create: Type.Integer(),
  update: Type.Integer(),
  replace: Type.Integer(),
  delete: Type.Integer(),
  other: Type.Integer(),
});

const PreviewSummary = Type.Object(
  {
    stack: Type.Optional(Type.String()),
    totals: ChangeCounts,
    unchanged: Type.Integer(),
    components: Type.Array(
      Type.Object({
        urn: Type.Optional(Type.String()),
        type: Type.String(),
        name: Type.String(),
        label: Type.String(),
        counts: ChangeCounts,
        changes: Type.Array(
          Type.Object({
            urn: Type.String(),
            type: Type.String(),
            name: Type.String(),
            kind: Type.String(),
            ops: Type.Array(Type.String()),
            reasons: Type.Array(Type.String()),
          }),
        ),
      }),
    ),
    errors: Type.Array(Type.String()),
    warnings: Type.Array(Type.String()),
  },
  {
    $id: "PreviewSummary",
    description: "The per-object diff, grouped by top-level component (as the PR summary)",
  },
);

export const PreviewRequest = Type.Object(
  { edits: Type.Optional(Type.Array(Type.Ref(SettingEdit), { maxItems: 100 })) },
  { additionalProperties: false },
);

export const PreviewResult = Type.Object(
  { operationId: Type.String({ format: "uuid" }), summary: Type.Ref(PreviewSummary) },
  { $id: "PreviewResult" },
);

export const OperationRequest = Type.Object(
  {
    kind: Type.Ref(OperationKind),
    edits: Type.Optional(
      Type.Array(Type.Ref(SettingEdit), {
        maxItems: 100,
        description: "Kept in the stack's settings (up only)",
      }),
    ),
    confirm: Type.Optional(Type.String({ description: "destroy: the stack's name, typed again" })),
  },
  { additionalProperties: false },
);

export const ProgressEvent = Type.Object(
  {
    kind: Type.Union([
      Type.Literal("step"),
      Type.Literal("diagnostic"),
      Type.Literal("summary"),
      Type.Literal("status"),
    ]),
    seq: Type.Integer(),
    at: Type.String({ format: "date-time" }),
    resource: Type.Optional(Type.Object({ urn: Type.String(), type: Type.String(), name: Type.String() })),
    op: Type.Optional(Type.String()),
    status: Type.Optional(
      Type.String({ description: "step: started, done, failed; status: running, succeeded, failed" }),
    ),
    durationMs: Type.Optional(Type.Integer()),
    severity: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    changes: Type.Optional(Type.Record(Type.String(), Type.Integer())),
    durationSeconds: Type.Optional(Type.Number()),
  },
  { $id: "ProgressEvent", description: "One Server-Sent Event's data (event name = kind)" },
);

/** Every named schema, registered with fastify (and so in the OpenAPI document's components). */
export const NAMED_SCHEMAS = [
  FieldProblem,
  OperationKind,
  OperationRecord,
  Problem,
  MemberStatus,
  CertificateStatus,
  EstateSummary,
  SettingValue,
  DependencyGraph,
  EstateDetail,
  SettingEdit,
  PreviewSummary,
  PreviewResult,
  ProgressEvent,
];
