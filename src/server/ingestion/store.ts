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

interface Entry {
  project: IngestProject | null;
  until: number;
  refreshing: boolean;
}

/**
 * Project keys to projects, remembered for 10 s (an unknown key for 2 s): capture, /decide and
 * /flags look one up on every request and keys almost never change. A known key past its 10 s
 * is answered from memory while it is read again in the background, so no request waits for
 * the database (on the embedded one, behind whatever holds its one connection); concurrent
 * first lookups of a key share one query.
 */
export class ProjectKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<IngestProject | null>>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads every project's key into memory (before the server says ready). */
  async warm(): Promise<void> {
    const projects = await this.prisma.project.findMany({ select: { id: true, apiToken: true, anonymizeIps: true, enrichEvents: true } });
    for (const { apiToken, ...project } of projects) this.entries.set(apiToken, { project, until: this.now() + TTL_MS, refreshing: false });
  }

  lookup(token: string): Promise<IngestProject | null> {
    // No project key holds a NUL (PostgreSQL cannot even compare one: the query would fail).
    if (token.includes("\u0000")) return Promise.resolve(null);
    const hit = this.entries.get(token);
    if (hit && hit.until > this.now()) return Promise.resolve(hit.project);
    if (hit?.project) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        this.load(token).catch(() => (hit.refreshing = false));
      }
      return Promise.resolve(hit.project);
    }
    return this.load(token);
  }

  private load(token: string): Promise<IngestProject | null> {
    let pending = this.loading.get(token);
    if (!pending) {
      pending = this.prisma.project
        .findUnique({ where: { apiToken: token }, select: { id: true, anonymizeIps: true, enrichEvents: true } })
        .then((project) => {
          if (this.entries.size > 10_000) this.entries.clear();
          this.entries.set(token, { project, until: this.now() + (project ? TTL_MS : MISS_TTL_MS), refreshing: false });
          return project;
        })
        .finally(() => this.loading.delete(token));
      this.loading.set(token, pending);
    }
    return pending;
  }
}
