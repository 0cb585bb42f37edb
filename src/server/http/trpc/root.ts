import { accountRouter } from "./routers/account";
import { actionsRouter } from "./routers/actions";
import { destinationsRouter } from "./routers/destinations";
import { alertsRouter } from "./routers/alerts";
import { subscriptionsRouter } from "./routers/subscriptions";
import { batchExportsRouter } from "./routers/batch-exports";
import { authRouter } from "./routers/auth";
import { cohortsRouter } from "./routers/cohorts";
import { dashboardsRouter } from "./routers/dashboards";
import { definitionsRouter } from "./routers/definitions";
import { earlyAccessRouter } from "./routers/early-access";
import { eventsRouter } from "./routers/events";
import { experimentsRouter } from "./routers/experiments";
import { flagsRouter } from "./routers/flags";
import { insightsRouter } from "./routers/insights";
import { installRouter } from "./routers/install";
import { organizationRouter } from "./routers/organization";
import { personsRouter } from "./routers/persons";
import { recordingsRouter } from "./routers/recordings";
import { queryRouter } from "./routers/query";
import { surveysRouter } from "./routers/surveys";
import { systemRouter } from "./routers/system";
import { transformationsRouter } from "./routers/transformations";
import { webRouter } from "./routers/web";
import { createCallerFactory, createTRPCRouter } from "./trpc";

/** Every tRPC router, by name. Add a domain's router here. */
export const appRouter = createTRPCRouter({
  account: accountRouter,
  actions: actionsRouter,
  experiments: experimentsRouter,
  destinations: destinationsRouter,
  alerts: alertsRouter,
  subscriptions: subscriptionsRouter,
  batchExports: batchExportsRouter,
  auth: authRouter,
  cohorts: cohortsRouter,
  dashboards: dashboardsRouter,
  definitions: definitionsRouter,
  earlyAccess: earlyAccessRouter,
  events: eventsRouter,
  flags: flagsRouter,
  insights: insightsRouter,
  install: installRouter,
  organization: organizationRouter,
  persons: personsRouter,
  recordings: recordingsRouter,
  query: queryRouter,
  surveys: surveysRouter,
  system: systemRouter,
  transformations: transformationsRouter,
  web: webRouter,
});

export type AppRouter = typeof appRouter;

/**
 * Calls procedures in-process, without HTTP (server components, tests):
 *
 *   const api = createCaller({ db, headers: new Headers() });
 *   const status = await api.system.status();
 */
export const createCaller = createCallerFactory(appRouter);
