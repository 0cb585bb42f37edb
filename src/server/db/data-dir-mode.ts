import fs from "node:fs";
import path from "node:path";

const GROUP_OR_OTHERS = 0o077;

/**
 * Keeps DATA_DIR to its owner: the database, the session secret and the lock are nobody
 * else's business. New files are private by the process's umask (077, set by the server and
 * the CLI); this fixes a directory made before that. Older Burrows left 968 of a fresh
 * directory's 1,149 files at 0666 and pgdata at 0755, so a loose DATA_DIR has its whole tree
 * tightened, once: a directory already private is not walked again. Entries of other users
 * are left alone (chmod would fail; the directory's own mode already shuts others out).
 */
export function makeDataDirPrivate(dir: string): void {
  const stat = fs.statSync(dir);
  if ((stat.mode & GROUP_OR_OTHERS) === 0 || stat.uid !== process.getuid?.()) return;
  tighten(dir, stat);
}

function tighten(entry: string, stat: fs.Stats): void {
  if (stat.uid !== process.getuid?.()) return;
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(entry)) {
      const child = path.join(entry, name);
      tighten(child, fs.lstatSync(child));
    }
  }
  // Symbolic links have no mode of their own; chmod would follow them out of DATA_DIR.
  if (!stat.isSymbolicLink() && (stat.mode & GROUP_OR_OTHERS) !== 0) fs.chmodSync(entry, stat.mode & 0o7700);
}
