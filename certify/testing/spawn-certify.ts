/**
 * Test helper: `npm run certify` as a user runs it, in a child process, with only the H2H_*
 * variables given (the outer ones dropped: a set-but-empty one would be refused; H2H_WORKERS,
 * which vitest.config.ts sets for every test, kept), its console
 * captured, and optionally its peak RSS (GNU time's "Maximum resident set size").
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's bin, as `npm run certify` runs it: `node bin/h2h-certify.mjs certify`. */
const bin = fileURLToPath(new URL("../../bin/h2h-certify.mjs", import.meta.url));
const specFilesScript = fileURLToPath(new URL("./certify-spec-files.ts", import.meta.url));
/** How the spec files' runner gets its TypeScript (as the bin does), so that what is measured is what users run. */
const TSX = ["--import", new URL("../../scripts/tsx.mjs", import.meta.url).href];
export const GNU_TIME = "/usr/bin/time";

export interface CertifyChild {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  elapsedMs: number;
  /** Peak RSS in KiB of the largest process certify ran (itself or a spec worker), with measureRss. */
  maxRssKiB?: number;
}

export interface SpawnCertifyOptions {
  args?: string[];
  /** Measure peak RSS with GNU time (/usr/bin/time -v). */
  measureRss?: boolean;
  /** Called once the child has printed this text (e.g. to signal it mid-run). */
  onOutput?: (output: string, pid: number) => void;
  /** The command run (default: certify), e.g. certify:receiver. */
  command?: string;
  /**
   * Only these contract spec files (paths from the project root): certify as `npm run certify`
   * runs it, limited to them (certify-spec-files.ts); not with `command` or `args`.
   */
  specFiles?: readonly string[];
  /** With specFiles: which reports the run writes (default: all four; the JSON always is). */
  reports?: readonly string[];
}

export function spawnCertify(
  env: Record<string, string>,
  options: SpawnCertifyOptions = {},
): Promise<CertifyChild> {
  const timeDir = options.measureRss ? mkdtempSync(join(tmpdir(), "h2h-rss-")) : undefined;
  const timeFile = timeDir ? join(timeDir, "time.txt") : undefined;
  const node = options.specFiles
    ? [
        process.execPath,
        ...TSX,
        specFilesScript,
        ...(options.reports ? [`--reports=${options.reports.join(",")}`] : []),
        ...options.specFiles,
      ]
    : [process.execPath, bin, options.command ?? "certify", ...(options.args ?? [])];
  const [command, ...args] = timeFile ? [GNU_TIME, "-v", "-o", timeFile, ...node] : node;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command as string, args, {
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith("H2H_") || name === "H2H_WORKERS"),
        ),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(output, child.pid as number);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("exit", (exitCode, signal) => {
      let maxRssKiB: number | undefined;
      if (timeFile && existsSync(timeFile)) {
        const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, "utf8"));
        maxRssKiB = match ? Number(match[1]) : undefined;
        // GNU time reports a killed or failing command on its own line: keep it out of the output.
      }
      if (timeDir) rmSync(timeDir, { recursive: true, force: true });
      resolve({
        exitCode,
        signal,
        output,
        elapsedMs: Date.now() - started,
        ...(maxRssKiB === undefined ? {} : { maxRssKiB }),
      });
    });
  });
}
