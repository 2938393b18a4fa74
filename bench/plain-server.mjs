// Reference point for `npm run bench`: the fastest a Node `http` server can answer 10 KB on this machine.
// Atelier's throughput is recorded as a ratio to this, measured in the same run, so numbers from different
// machines can be compared.
import { createServer } from "node:http";

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("plain-server: set PORT to the port to listen on.\n");
  process.exit(1);
}

const body = Buffer.from("x".repeat(10 * 1024));
const headers = { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.length) };

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});

server.listen(port, "127.0.0.1");

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
