/** Data access for dashboards' sharing configurations (their public links). */
import { Prisma } from "@/generated/prisma/client";
import type { DbClient, Tx } from "@/server/db/transaction";

export type SharingRow = Prisma.SharingConfigurationGetPayload<object>;

/**
 * The configuration in force: the newest one not expired by a token refresh (dashboards'
 * store asks the same of its `is_shared`).
 */
const currentSharingWhere = { expiresAt: null } satisfies Prisma.SharingConfigurationWhereInput;

/** The dashboard's configuration in force, if any. */
export function findCurrentConfiguration(db: DbClient, dashboardId: number): Promise<SharingRow | null> {
  return db.sharingConfiguration.findFirst({ where: { dashboardId, ...currentSharingWhere }, orderBy: { id: "desc" } });
}

/**
 * The configuration in force, created (disabled, with `accessToken`) if there is none. The
 * dashboard row is locked first so that concurrent first reads or refreshes cannot leave
 * two in force; so this runs in the caller's transaction.
 */
export async function lockCurrentConfiguration(
  tx: Tx,
  configuration: { projectId: number; dashboardId: number; createdById: number; accessToken: string },
): Promise<SharingRow> {
  await tx.$queryRaw`SELECT id FROM dashboards WHERE id = ${configuration.dashboardId} FOR UPDATE`;
  const existing = await findCurrentConfiguration(tx, configuration.dashboardId);
  if (existing) return existing;
  return tx.sharingConfiguration.create({ data: { ...configuration, enabled: false } });
}

/** Turns the link on or off; `settings: null` clears them, undefined keeps them. */
export function updateConfiguration(db: DbClient, id: number, changes: { enabled?: boolean; settings?: Record<string, unknown> | null }): Promise<SharingRow> {
  return db.sharingConfiguration.update({
    where: { id },
    data: { enabled: changes.enabled, settings: changes.settings === null ? Prisma.DbNull : (changes.settings as Prisma.InputJsonValue | undefined) },
  });
}

/** Takes the configuration out of force (a refresh replaces it). */
export async function expireConfiguration(db: DbClient, id: number, at: Date): Promise<void> {
  await db.sharingConfiguration.update({ where: { id }, data: { expiresAt: at } });
}

export function insertConfiguration(
  db: DbClient,
  configuration: { projectId: number; dashboardId: number; enabled: boolean; settings: unknown; accessToken: string; createdById: number },
): Promise<SharingRow> {
  return db.sharingConfiguration.create({
    data: { ...configuration, settings: (configuration.settings ?? undefined) as Prisma.InputJsonValue | undefined },
  });
}

/** The configuration a share link's token names, whatever its state. */
export function findConfigurationByToken(db: DbClient, accessToken: string): Promise<SharingRow | null> {
  return db.sharingConfiguration.findUnique({ where: { accessToken } });
}
