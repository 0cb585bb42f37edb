import fs from "node:fs";
import path from "node:path";

const GROUP_OR_OTHERS = 0o077;

/**
 * Takes group and others' access away from everything under `root` that this user owns: the
 * embedded database, the session secret and the lock are nobody else's business. The umask
 * (077, set by the server and the CLI) covers what Node creates, but PGlite writes its
 * initial database with explicit modes: a fresh pgdata had 968 of its 1,149 files at 0666
 * even under umask 077, and older Burrows left DATA_DIR itself at 0755. Walking a fresh
 * DATA_DIR takes about 7 ms here.
 *
 * Entries of other users are left alone (chmod would fail; DATA_DIR's own mode shuts others
 * out of them), symbolic links are not followed out of the tree, and entries that vanish
 * during the walk (the database may be running) are skipped.
 */
export function makeTreePrivate(root: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // no POSIX modes (Windows)
  const visit = (entry: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
      if (stat.isSymbolicLink() || stat.uid !== uid) return;
      if ((stat.mode & GROUP_OR_OTHERS) !== 0) fs.chmodSync(entry, stat.mode & 0o7700);
      if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  };
  visit(root);
}
