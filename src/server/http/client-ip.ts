import type { RawRequest } from "@/server/http/raw";

/** The client's address: the first X-Forwarded-For entry (the server adds the socket's). */
export function clientIp(header: RawRequest["header"]): string | null {
  const forwarded = header("x-forwarded-for");
  const first = forwarded?.split(",")[0]?.trim();
  return first ? first.replace(/^::ffff:/, "") : null;
}
