import fs from "node:fs";
import path from "node:path";

/**
 * Every entry under `dir` (and `dir` itself) that its group or others may read, write or
 * enter, with its mode: what a test of DATA_DIR's privacy expects to be empty. Shared by the
 * unit test of data-dir-mode.ts and the restart e2e spec.
 */
export function openToOthers(dir: string): string[] {
  const open: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (!stat.isSymbolicLink() && (stat.mode & 0o077) !== 0) open.push(`${path.relative(dir, entry) || "."} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return open;
}
