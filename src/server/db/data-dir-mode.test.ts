import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./client";
import { makeTreePrivate } from "./data-dir-mode";
import { openToOthers } from "@/test-support/open-to-others";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-mode-"));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const mode = (entry: string) => fs.statSync(entry).mode & 0o777;

describe("makeTreePrivate", () => {
  it("takes group and others' access from every file and directory, keeping the owner's", () => {
    const root = tempDir();
    fs.chmodSync(root, 0o755);
    fs.mkdirSync(path.join(root, "pgdata", "base"), { recursive: true });
    fs.chmodSync(path.join(root, "pgdata"), 0o775);
    fs.writeFileSync(path.join(root, "pgdata", "base", "1234"), "");
    fs.chmodSync(path.join(root, "pgdata", "base", "1234"), 0o666);
    fs.writeFileSync(path.join(root, "tool"), "");
    fs.chmodSync(path.join(root, "tool"), 0o755);
    makeTreePrivate(root);
    expect(mode(root)).toBe(0o700);
    expect(mode(path.join(root, "pgdata"))).toBe(0o700);
    expect(mode(path.join(root, "pgdata", "base"))).toBe(0o700);
    expect(mode(path.join(root, "pgdata", "base", "1234"))).toBe(0o600);
    expect(mode(path.join(root, "tool"))).toBe(0o700);
  });

  it("does not follow symbolic links out of the tree", () => {
    const root = tempDir();
    const outside = path.join(tempDir(), "outside");
    fs.writeFileSync(outside, "");
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(root, "link"));
    makeTreePrivate(root);
    expect(mode(outside)).toBe(0o644);
  });
});

describe("the embedded database's DATA_DIR", () => {
  // PGlite writes its initial database with explicit modes (0666 for most files), whatever
  // the umask: opening must leave nothing open to others, in a fresh DATA_DIR or an old one.
  it("has nothing open to group or others once the database is open, also when it was made open before", async () => {
    const dataDir = path.join(tempDir(), "data");
    const first = await openDatabase({ kind: "pglite", dataDir });
    await first.close();
    expect(openToOthers(dataDir)).toEqual([]);

    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, "pgdata"), 0o755);
    fs.chmodSync(path.join(dataDir, "pgdata", "PG_VERSION"), 0o666);
    const again = await openDatabase({ kind: "pglite", dataDir });
    cleanup.push(() => again.close());
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);
});
