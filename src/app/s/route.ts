// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleSnapshotsRoute } from "@/server/http/sdk/recordings";

export const dynamic = "force-dynamic";
export { handleSnapshotsRoute as POST, handleSnapshotsRoute as OPTIONS };
