import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { addCollaboratorBody } from "@/server/collaborators/contract";
import { addCollaborator, listCollaborators, removeCollaborator } from "@/server/collaborators/service";
import { dashboardCreateBody, dashboardListQuery, dashboardResultsQuery, dashboardUpdateBody, newInsightTileBody, tilePatchSchema } from "@/server/dashboards/contract";
import { dashboardResults } from "@/server/dashboards/service";
import { addInsightTile, createDashboard, getDashboard, listDashboards, updateDashboard } from "@/server/dashboards/service";
import { DASHBOARD_TEMPLATES } from "@/server/dashboards/templates";
import { serverEnvFrom } from "@/server/env";
import { sharingUpdateBody } from "@/server/sharing/contract";
import { getDashboardSharing, refreshDashboardSharing, updateDashboardSharing } from "@/server/sharing/service";
import { listProjectTags } from "@/server/tags/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const dashboardId = z.object({ dashboardId: recordId() });

/** A sharing configuration with the public link the admin UI shows and copies. */
function withShareUrl<T extends { access_token: string | null }>(config: T): T & { share_url: string | null } {
  return { ...config, share_url: config.access_token === null ? null : `${serverEnvFrom().siteUrl}/shared/${config.access_token}` };
}

/**
 * Dashboards, their collaborators and sharing for the admin UI: the REST API's contracts
 * and services, so restriction rules and messages are the same on both.
 */
export const dashboardsRouter = createTRPCRouter({
  list: projectProcedure.input(dashboardListQuery).query(({ ctx, input }) => listDashboards(ctx, input)),

  get: projectProcedure.input(dashboardId).query(({ ctx, input }) => getDashboard(ctx, input.dashboardId)),

  /**
   * Every insight tile's result in one round trip, under the saved filters or `filters` laid
   * over them: a stream (JSON lines, through the client's httpBatchStreamLink) yielding each
   * tile as soon as it is computed.
   */
  results: projectProcedure
    .input(dashboardId.extend(dashboardResultsQuery.shape))
    .query(({ ctx, input }) => dashboardResults(ctx, input.dashboardId, input)),

  create: projectProcedure.input(dashboardCreateBody).mutation(({ ctx, input }) => createDashboard(ctx, input)),

  /** Edits, soft delete (`deleted: true`) and restore (`deleted: false`). */
  update: projectProcedure
    .input(dashboardId)
    .input(dashboardUpdateBody)
    .mutation(({ ctx, input }) => {
      const { projectId: _project, dashboardId: id, ...body } = input;
      return updateDashboard(ctx, id, body);
    }),

  /** The built-in templates `create` takes as `use_template`. */
  templates: projectProcedure.query(() =>
    DASHBOARD_TEMPLATES.map((template) => ({ key: template.key, name: template.name, description: template.description, tileCount: template.tiles.length })),
  ),

  tiles: createTRPCRouter({
    /** A new insight (made by the insights service) on a new tile at the first free spot. */
    addInsight: projectProcedure
      .input(dashboardId.extend({ insight: newInsightTileBody }))
      .mutation(({ ctx, input }) => addInsightTile(ctx, input.dashboardId, input.insight)),
    /** PATCH `tiles`: add text tiles, move, resize, recolor, edit texts, remove (`deleted: true`). */
    update: projectProcedure
      .input(dashboardId.extend({ tiles: z.array(tilePatchSchema).min(1).max(200) }))
      .mutation(({ ctx, input }) => updateDashboard(ctx, input.dashboardId, { tiles: input.tiles })),
  }),

  /** The project's tags in use, for the tag picker and filter. */
  tags: projectProcedure.query(({ ctx }) => listProjectTags(ctx)),

  collaborators: createTRPCRouter({
    list: projectProcedure.input(dashboardId).query(({ ctx, input }) => listCollaborators(ctx, input.dashboardId)),
    add: projectProcedure
      .input(dashboardId)
      .input(addCollaboratorBody)
      .mutation(({ ctx, input }) => addCollaborator(ctx, input.dashboardId, { user_uuid: input.user_uuid, level: input.level })),
    remove: projectProcedure
      .input(dashboardId.extend({ userUuid: z.string().max(100) }))
      .mutation(({ ctx, input }) => removeCollaborator(ctx, input.dashboardId, input.userUuid)),
  }),

  sharing: createTRPCRouter({
    get: projectProcedure
      .input(dashboardId)
      .query(async ({ ctx, input }) => withShareUrl(await getDashboardSharing(ctx, input.dashboardId))),
    update: projectProcedure
      .input(dashboardId)
      .input(sharingUpdateBody)
      .mutation(async ({ ctx, input }) => {
        const { projectId: _project, dashboardId: id, ...body } = input;
        return withShareUrl(await updateDashboardSharing(ctx, id, body));
      }),
    refresh: projectProcedure
      .input(dashboardId)
      .mutation(async ({ ctx, input }) => withShareUrl(await refreshDashboardSharing(ctx, input.dashboardId))),
  }),
});
