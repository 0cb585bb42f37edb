/**
 * Playwright's global setup (after webServer is up, before any worker starts): the shared
 * instance gets its owner once, so that specs in parallel workers find it already there; and
 * one embedded database is migrated with the admin CLI, for specs' own deployments to copy
 * (server.ts, `migratedDataDir`). Workers inherit the environment set here.
 */
import fs from "node:fs";
import type { FullConfig } from "@playwright/test";
import { ensureOwner } from "./accounts";
import { admin, MIGRATED_DATA_DIR_ENV, tempDataDir } from "./server";

export default async function globalSetup(config: FullConfig): Promise<() => void> {
  const base = config.projects[0]?.use.baseURL;
  if (!base) throw new Error("playwright.config.ts sets no baseURL");
  await ensureOwner(base);
  const template = tempDataDir();
  const migrated = admin(["migrate"], { DATA_DIR: template });
  if (migrated.code !== 0) throw new Error(`admin migrate failed:\n${migrated.stderr}`);
  process.env[MIGRATED_DATA_DIR_ENV] = template;
  return () => fs.rmSync(template, { recursive: true, force: true });
}
