import { accountRouter } from "./routers/account";
import { authRouter } from "./routers/auth";
import { eventsRouter } from "./routers/events";
import { organizationRouter } from "./routers/organization";
import { systemRouter } from "./routers/system";
import { createCallerFactory, createTRPCRouter } from "./trpc";

/** Every tRPC router, by name. Add a domain's router here. */
export const appRouter = createTRPCRouter({
  account: accountRouter,
  auth: authRouter,
  events: eventsRouter,
  organization: organizationRouter,
  system: systemRouter,
});

export type AppRouter = typeof appRouter;

/**
 * Calls procedures in-process, without HTTP (server components, tests):
 *
 *   const api = createCaller({ db, headers: new Headers() });
 *   const status = await api.system.status();
 */
export const createCaller = createCallerFactory(appRouter);
