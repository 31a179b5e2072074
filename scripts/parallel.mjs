/**
 * Runs npm scripts of this package side by side: `node scripts/parallel.mjs typecheck:app lint deps`.
 * `npm test` starts with the type checks, the linter and the layer rules, each of which keeps one
 * core busy: on two cores, run together they take the time of the longest, not the sum. Each
 * script's output is printed whole when it ends (never interleaved), and the exit code is the
 * first failing script's, or 0. Plain JavaScript: it runs before anything is transformed.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const names = process.argv.slice(2);
const unknown = names.filter((name) => typeof scripts[name] !== "string");
if (names.length === 0 || unknown.length > 0) {
  console.error(
    names.length === 0
      ? "usage: node scripts/parallel.mjs SCRIPT... (npm scripts of package.json)"
      : `error: no npm script named ${unknown.join(", ")} in package.json (have: ${Object.keys(scripts).join(", ")})`,
  );
  process.exit(64);
}

// As npm runs a script: from the package root, with its local binaries first on PATH.
const env = {
  ...process.env,
  PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`,
};

function run(name) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(scripts[name], { cwd: root, env, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.once("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.once("close", (code, signal) => {
      const text = Buffer.concat(output).toString();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = code === 0 ? "ok" : `failed (${signal ?? `exit code ${code}`})`;
      process.stdout.write(
        `> ${name}: ${scripts[name]}\n${text}${text === "" || text.endsWith("\n") ? "" : "\n"}`,
      );
      process.stdout.write(`< ${name}: ${outcome} in ${seconds} s\n`);
      resolve(code ?? 1);
    });
  });
}

const codes = await Promise.all(names.map(run));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
