import * as fs from "fs";
import * as http from "http";
import * as path from "path";

/** A static file server on 127.0.0.1 (a "mirror" for artifacts and snapshots). */
export interface FileServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the files of `dir` (no listing, no subdirectories) on `address:port` (default 127.0.0.1, a
 * random port).
 */
export function serveDirectory(dir: string, address = "127.0.0.1", port = 0): Promise<FileServer> {
  const server = http.createServer((req, res) => {
    let name: string;
    try {
      name = path.basename(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    } catch {
      res.writeHead(400).end("bad request");
      return;
    }
    const file = path.join(dir, name);
    if (!name || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => {
      const bound = (server.address() as { port: number }).port;
      resolve({
        url: `http://${address}:${bound}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
