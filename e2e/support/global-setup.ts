/**
 * Playwright's global setup (after webServer is up, before any worker starts): the shared
 * instance gets its owner once, so that specs in parallel workers find it already there.
 */
import type { FullConfig } from "@playwright/test";
import { ensureOwner } from "./accounts";

export default async function globalSetup(config: FullConfig): Promise<void> {
  const base = config.projects[0]?.use.baseURL;
  if (!base) throw new Error("playwright.config.ts sets no baseURL");
  await ensureOwner(base);
}
