import type { Database } from "@/server/db";
import { GroupsService } from "@/server/groups/service";
import { PersonsService } from "@/server/persons/service";
import { ProjectKeyCache } from "./projects";
import { EventWriter } from "./writer";

export interface IngestionServices {
  db: Database;
  projects: ProjectKeyCache;
  persons: PersonsService;
  groups: GroupsService;
  writer: EventWriter;
}

// One set per process (modules load twice: Next's bundle and the server), bound to the
// process's database.
const KEY = Symbol.for("burrow.ingestionServices");
type Holder = { [KEY]?: IngestionServices };

export function ingestionServices(db: Database): IngestionServices {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  if (existing && existing.db === db) return existing;
  const services = createIngestionServices(db);
  holder[KEY] = services;
  return services;
}

export function createIngestionServices(db: Database): IngestionServices {
  const writer = new EventWriter(db.events);
  // Events resolved to a person before it was merged away, and written while the merge ran,
  // still name the old person: once those writes are in, move them too.
  const afterMerge = async (projectId: number, sourceUuid: string, targetUuid: string) => {
    await writer.settled();
    await db.events.reassignPerson(projectId, sourceUuid, targetUuid);
  };
  return {
    db,
    projects: new ProjectKeyCache(db.prisma),
    persons: new PersonsService(db.sql, db.events, afterMerge, db.changes),
    groups: new GroupsService(db.sql),
    writer,
  };
}

/** Waits for the event writer to finish (graceful shutdown). */
export async function drainIngestion(): Promise<void> {
  await (globalThis as Holder)[KEY]?.writer.drain();
}
