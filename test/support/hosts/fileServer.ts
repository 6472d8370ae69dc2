import * as fs from "fs";
import * as http from "http";
import * as path from "path";

/** A static file server on 127.0.0.1 (a "mirror" for artifacts and snapshots). */
export interface FileServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the files of `dir` (no listing, no subdirectories) on 127.0.0.1, random port. */
export function serveDirectory(dir: string): Promise<FileServer> {
  const server = http.createServer((req, res) => {
    const name = path.basename(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    const file = path.join(dir, name);
    if (!name || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
