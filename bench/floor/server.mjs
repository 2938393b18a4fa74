// The floor's server: Node's `http` handing each request to React Router's request handler, nothing else.
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequestHandler } from "react-router";

globalThis.floorPages = JSON.parse(readFileSync(process.env.FLOOR_PAGES, "utf8"));
const build = await import("./build/server/index.js");
const handle = createRequestHandler(build, "production");
const port = Number(process.env.PORT);

http
  .createServer(async (req, res) => {
    const response = await handle(new Request(`http://127.0.0.1:${port}${req.url}`, { headers: req.headers }));
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(body);
  })
  .listen(port, "127.0.0.1");
