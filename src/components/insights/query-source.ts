/** The renderer a stored query needs: shared with the server (the share page sends only what these draw). */
export { resultKindOf, sourceOf, type ResultKind } from "@/server/analytics/drawn-kind";
