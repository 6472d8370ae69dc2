/**
 * The web console's files: console/web's page and stylesheet, and its scripts compiled from TypeScript
 * into console/web/dist (`npm run console:web`; `npm run console` builds them first). Plain HTML, CSS and
 * JavaScript modules, no external fonts or scripts. They hold no estate data — the page asks for a token
 * and calls the API with it — so they are the only paths served without one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { FastifyInstance } from "fastify";

/** Where the console's files are. */
const WEB_DIR = path.join(__dirname, "..", "web");

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** The console's files by URL path (`/console/<path below console/web>`), read once. */
function webFiles(dir = WEB_DIR): Map<string, { type: string; body: Buffer }> {
  const files = new Map<string, { type: string; body: Buffer }>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(name);
      else if (TYPES[path.extname(entry.name)] && (name.startsWith("dist/") || !name.includes("/")))
        files.set(`/console/${name}`, {
          type: TYPES[path.extname(name)],
          body: fs.readFileSync(path.join(dir, name)),
        });
    }
  };
  if (fs.existsSync(dir)) walk("");
  return files;
}

/** Serves `/` (to the console's page) and `/console/<file>`. */
export function serveWebConsole(app: FastifyInstance, dir = WEB_DIR): void {
  const files = webFiles(dir);
  const headers = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy":
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
  };
  app.get("/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/console/index.html"));
  app.get("/console/*", { schema: { hide: true } }, async (request, reply) => {
    const file = files.get(request.url.split("?")[0]);
    if (!file) return reply.code(404).type("text/plain").send("not found");
    return reply.headers(headers).type(file.type).send(file.body);
  });
}
