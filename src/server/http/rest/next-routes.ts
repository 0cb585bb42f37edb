import { notFound } from "next/navigation";
import { allowHeader, handlerFor, matchRestRoute } from "./routes";
import { REST_METHODS, type RestMethod, type RestPrefix, type RouteHandler } from "./route";

type CatchAllParams = { project_id: string; path?: string[] };

/**
 * The handlers of the one Next route file per prefix
 * (src/app/api/<prefix>/[project_id]/[[...path]]/route.ts): each matches the path in the
 * route table and calls the resource's handler with the params a per-resource route file
 * had. HEAD is Next's (GET without the body); OPTIONS answers `Allow` as Next did per file.
 * An unknown path is Next's not-found (server.ts renders the 404 page before Next is reached).
 */
export function restRouteHandlers(prefix: RestPrefix): Record<RestMethod | "OPTIONS", RouteHandler> {
  async function resolve(route: { params: Promise<CatchAllParams> }) {
    const { project_id, path = [] } = await route.params;
    const match = matchRestRoute(prefix, path);
    if (!match) notFound();
    return { match, params: { project_id, ...match.params } };
  }
  const handlers = Object.fromEntries(
    REST_METHODS.map((method) => [
      method,
      async (request: Request, route: { params: Promise<CatchAllParams> }) => {
        const { match, params } = await resolve(route);
        return handlerFor(match.resource, method)(request, { params: Promise.resolve(params) });
      },
    ]),
  ) as Record<RestMethod, RouteHandler>;
  return {
    ...handlers,
    async OPTIONS(_request, route) {
      const { match } = await resolve(route);
      return new Response(null, { status: 204, headers: { Allow: allowHeader(match.resource) } });
    },
  };
}
