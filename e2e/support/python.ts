/**
 * The real posthog-python SDK for the e2e specs: a virtualenv under node_modules/.cache with
 * e2e/sdk-python/requirements.txt installed, made on first use and again when the
 * requirements change. pip runs without retries: on a machine without the internet a
 * package index that cannot be reached fails at once instead of after a minute of retrying
 * (pip's own configuration, e.g. a local mirror or find-links, still applies).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const REQUIREMENTS = path.resolve("e2e/sdk-python/requirements.txt");
const VENV = path.resolve("node_modules/.cache/burrow-posthog-python");
const INSTALLED_MARK = path.join(VENV, "requirements.txt");

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr ?? ""}${result.stdout ?? ""}`);
  }
}

/** The virtualenv's python with posthog-python installed. */
export function posthogPython(): string {
  const python = path.join(VENV, "bin", "python");
  const wanted = fs.readFileSync(REQUIREMENTS, "utf8");
  if (fs.existsSync(python) && fs.existsSync(INSTALLED_MARK) && fs.readFileSync(INSTALLED_MARK, "utf8") === wanted) return python;
  fs.rmSync(VENV, { recursive: true, force: true });
  run("python3", ["-m", "venv", VENV]);
  run(path.join(VENV, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "--retries", "0", "--timeout", "15", "-r", REQUIREMENTS]);
  fs.writeFileSync(INSTALLED_MARK, wanted);
  return python;
}

/**
 * Runs a Python script with the SDK's python, its stdout parsed as JSON. Asynchronous, so that
 * the servers this worker started keep having their output read meanwhile.
 */
export function runPython<T>(script: string, input: unknown, timeoutMs = 60_000): Promise<T> {
  const child = spawn(posthogPython(), [script, JSON.stringify(input)], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`python ${script} failed (${signal ?? `exit ${code}`}):\n${stderr}\n${stdout}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`python ${script} printed no JSON:\n${stdout}\n${stderr}`));
      }
    });
  });
}
