import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A still of a huge video is still far below this; anything bigger is not a frame we want. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

type Run = { kind: "frame"; bytes: Uint8Array } | { kind: "missing" } | { kind: "failed" };

function isPng(bytes: Uint8Array): boolean {
  return bytes.byteLength > PNG_SIGNATURE.length && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

function runFfmpeg(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (run: Run) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(run);
    };
    const chunks: Buffer[] = [];
    let size = 0;
    const child = spawn("ffmpeg", args, { stdio: ["ignore", "pipe", "ignore"] });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done({ kind: "failed" });
    }, timeoutMs);
    child.on("error", (error: NodeJS.ErrnoException) => done({ kind: error.code === "ENOENT" ? "missing" : "failed" }));
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_FRAME_BYTES) {
        child.kill("SIGKILL");
        done({ kind: "failed" });
        return;
      }
      chunks.push(chunk);
    });
    child.on("close", (code) => {
      const bytes = Buffer.concat(chunks);
      done(code === 0 && isPng(bytes) ? { kind: "frame", bytes: new Uint8Array(bytes) } : { kind: "failed" });
    });
  });
}

/**
 * A PNG still of any video, 1 s in (the first frame of a shorter clip), made by a system `ffmpeg` when one is on
 * the PATH; null without ffmpeg, past the deadline, or for anything ffmpeg cannot read. Never throws.
 *
 * The video goes through a temporary file rather than a pipe: an MP4 whose index sits at the end cannot be read
 * from a pipe.
 */
export async function posterFrame(video: Uint8Array, opts?: { timeoutMs?: number }): Promise<Uint8Array | null> {
  const deadline = Date.now() + (opts?.timeoutMs ?? 15_000);
  if (video.byteLength === 0) return null;
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), "atelier-poster-"));
    const input = join(dir, "video");
    await writeFile(input, video);
    // Seeking past the end of a clip shorter than a second yields no frame, so fall back to the first one.
    for (const at of ["1", "0"]) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const run = await runFfmpeg(
        ["-hide_banner", "-loglevel", "error", "-nostdin", "-ss", at, "-i", input].concat([
          "-an",
          "-frames:v",
          "1",
          "-f",
          "image2pipe",
          "-c:v",
          "png",
          "pipe:1",
        ]),
        left,
      );
      if (run.kind === "frame") return run.bytes;
      if (run.kind === "missing") return null;
    }
    return null;
  } catch {
    return null;
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
