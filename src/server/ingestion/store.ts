/**
 * Data access of the ingestion domain: project keys to projects. Events are written through
 * the event store (db/events, by writer.ts), persons and groups through their services.
 */
import type { PrismaClient } from "@/server/db/client";

export interface IngestProject {
  id: number;
  anonymizeIps: boolean;
  enrichEvents: boolean;
}

const TTL_MS = 10_000;
const MISS_TTL_MS = 2_000;

/**
 * Project keys to projects, remembered for 10 s (an unknown key for 2 s): capture looks one
 * up on every request and keys almost never change.
 */
export class ProjectKeyCache {
  private readonly entries = new Map<string, { project: IngestProject | null; until: number }>();

  constructor(private readonly prisma: PrismaClient) {}

  async lookup(token: string): Promise<IngestProject | null> {
    // No project key holds a NUL (PostgreSQL cannot even compare one: the query would fail).
    if (token.includes("\u0000")) return null;
    const now = Date.now();
    const hit = this.entries.get(token);
    if (hit && hit.until > now) return hit.project;
    const row = await this.prisma.project.findUnique({ where: { apiToken: token }, select: { id: true, anonymizeIps: true, enrichEvents: true } });
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(token, { project: row, until: now + (row ? TTL_MS : MISS_TTL_MS) });
    return row;
  }
}
