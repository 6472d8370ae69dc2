/**
 * lib/kube/serving.ts: the wait for an API server to serve at its endpoint — retried problems, the
 * deadline, and, against a real HTTPS server that checks client certificates, the path the Karmada
 * provider's kubeconfig takes (refused connections until it listens, 503 until it is ready).
 */
import * as fs from "fs";
import * as https from "https";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { ApiAnswer, callApi } from "../../../lib/kube/rest";
import { READINESS_PATH, waitUntilServing } from "../../../lib/kube/serving";
import { steppedClock } from "../../support/clock";
import { CLIENT_EXTENSIONS, generateCa, issueLeaf, servingExtensions } from "../../../devkit/pki";

/** A GET answering from `script` in turn: an Error to throw, else the status. */
function scripted(script: (number | Error)[]) {
  const paths: string[] = [];
  const get = async (apiPath: string): Promise<ApiAnswer> => {
    paths.push(apiPath);
    const next = script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    return { status: next, body: "" };
  };
  return { get, paths };
}

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:32443"), { code: "ECONNREFUSED" });

describe("waitUntilServing", () => {
  test("a serving API costs one request and no wait", async () => {
    const clock = steppedClock();
    const { get, paths } = scripted([200]);
    expect(await waitUntilServing(get, { timeoutMs: 10_000, pollMs: 500 }, clock)).toEqual({
      attempts: 1,
      problems: [],
    });
    expect(paths).toEqual([READINESS_PATH]);
    expect(clock.sleeps).toEqual([]);
  });

  test("refused connections and non-200 answers are retried every pollMs, each told to onRetry", async () => {
    const clock = steppedClock();
    const { get } = scripted([refused(), 503, 401, 200]);
    const told: [string, number][] = [];
    const report = await waitUntilServing(
      get,
      { timeoutMs: 10_000, pollMs: 500, onRetry: (problem, attempt) => told.push([problem, attempt]) },
      clock,
    );
    expect(report.attempts).toBe(4);
    expect(report.problems).toEqual([
      "ECONNREFUSED",
      "answered 503",
      "401 Unauthorized: the kubeconfig's client certificate is refused",
    ]);
    expect(told.map(([, attempt]) => attempt)).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([500, 500, 500]);
  });

  test("gives up at the deadline, saying how long, how many attempts and what the last one got", async () => {
    const clock = steppedClock();
    const { get } = scripted(Array.from({ length: 50 }, () => 403));
    await expect(waitUntilServing(get, { timeoutMs: 2_000, pollMs: 300 }, clock)).rejects.toThrow(
      "not serving after 2s (8 attempts; last: 403 Forbidden: the kubeconfig's user may not read /readyz)",
    );
    // the last sleep is cut to the deadline: never past it
    expect(clock.slept).toBe(2_000);
  });

  test("an error without a code is described by its message", async () => {
    const { get } = scripted([new Error("socket hang up"), 200]);
    const report = await waitUntilServing(get, { timeoutMs: 1_000, pollMs: 1 }, steppedClock());
    expect(report.problems).toEqual(["socket hang up"]);
  });
});

describe("waitUntilServing through HTTPS with a client certificate (callApi, a real server)", () => {
  let dir: string;
  let ca: { certPem: string; keyPem: string };
  const read = (name: string) => fs.readFileSync(path.join(dir, name), "utf8");

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-serving-"));
    ca = generateCa(dir, "serving-test-ca");
    issueLeaf(dir, "server", "/CN=karmada-apiserver", servingExtensions(["IP:127.0.0.1"]), 1);
    issueLeaf(dir, "client", "/O=system:masters/CN=pulumi-karmada-provider", [...CLIENT_EXTENSIONS], 1);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A free port on 127.0.0.1, closed again: nothing listens there until the server starts. */
  async function freePort(): Promise<number> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  test("waits through refused connections and a 503 until /readyz answers 200 to the client certificate", async () => {
    const port = await freePort();
    let readyzCalls = 0;
    const clientCns: string[] = [];
    const server = https.createServer(
      {
        cert: read("server.crt"),
        key: read("server.key"),
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const peer = (req.socket as import("tls").TLSSocket).getPeerCertificate();
        clientCns.push(String(peer.subject?.CN));
        readyzCalls += req.url === "/readyz" ? 1 : 0;
        // the first answer: not ready yet (etcd unreachable, say)
        res.writeHead(readyzCalls === 1 ? 503 : 200);
        res.end(readyzCalls === 1 ? "[-]etcd failed" : "ok");
      },
    );
    const access = {
      server: `https://127.0.0.1:${port}`,
      caPem: ca.certPem,
      certPem: read("client.crt"),
      keyPem: read("client.key"),
    };
    const started = setTimeout(() => server.listen(port, "127.0.0.1"), 400);
    try {
      const report = await waitUntilServing((p) => callApi(access, "GET", p, undefined, 2_000), {
        timeoutMs: 20_000,
        pollMs: 100,
      });
      expect(report.problems.length).toBeGreaterThanOrEqual(2);
      expect(report.problems[0]).toBe("ECONNREFUSED");
      expect(report.problems[report.problems.length - 1]).toBe("answered 503");
      expect(report.attempts).toBe(report.problems.length + 1);
      expect(clientCns).toEqual(["pulumi-karmada-provider", "pulumi-karmada-provider"]);
    } finally {
      clearTimeout(started);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a server whose certificate the CA did not sign is never taken as serving", async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "pk-serving-other-"));
    try {
      const stranger = generateCa(other, "someone-else");
      const port = await freePort();
      const server = https.createServer(
        { cert: read("server.crt"), key: read("server.key") },
        (_req, res) => {
          res.writeHead(200);
          res.end("ok");
        },
      );
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
      try {
        const access = { server: `https://127.0.0.1:${port}`, caPem: stranger.certPem };
        await expect(
          waitUntilServing((p) => callApi(access, "GET", p, undefined, 2_000), {
            timeoutMs: 300,
            pollMs: 100,
          }),
        ).rejects.toThrow(
          /not serving after 0s \(\d+ attempts; last: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT)\)/,
        );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
