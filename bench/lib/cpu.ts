/**
 * CPU seconds used by the benchmarked server and by PostgreSQL, from /proc (Linux): a cost per
 * request that a loaded machine distorts far less than req/s does. NaN where /proc is missing.
 */
import fs from "node:fs";

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds used so far by each PostgreSQL server process, by pid. */
export function postgresCpuSeconds(): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of fs.existsSync("/proc") ? fs.readdirSync("/proc") : []) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") used.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // the process ended while we looked
    }
  }
  return used;
}

/** CPU seconds PostgreSQL used since `before`: over processes alive at the end (a backend that ended meanwhile is not counted). */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of postgresCpuSeconds()) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Starts counting; `perUnit(n)` then says the µs of CPU each of `n` units cost the server and PostgreSQL. */
export function cpuMeter(serverPid: number): { perUnit(units: number): string } {
  const server = cpuSeconds(serverPid);
  const postgres = postgresCpuSeconds();
  return {
    perUnit(units) {
      const us = (seconds: number) => (Number.isNaN(seconds) || units === 0 ? "?" : `${Math.round((seconds / units) * 1e6)} µs`);
      const pg = postgresCpuSince(postgres);
      return `CPU each: server ${us(cpuSeconds(serverPid) - server)}${pg > 0 ? `, PostgreSQL ${us(pg)}` : ""}`;
    },
  };
}
