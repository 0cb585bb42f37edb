/**
 * The signed-in app's main navigation. `more`: on a narrower desktop screen (1024–1279 px)
 * the link waits in the top bar's "More" menu, so the bar keeps room for the project's name —
 * the links visited less often, and Home, which the logo also leads to. `"always"`: in that
 * menu on every desktop width (sixteen links did not fit beside the name even at 1920 px).
 */
export const NAV_LINKS = [
  { href: "/", label: "Home", match: (path: string) => path === "/", more: true },
  { href: "/web", label: "Web analytics", match: (path: string) => path.startsWith("/web"), more: false },
  { href: "/dashboards", label: "Dashboards", match: (path: string) => path.startsWith("/dashboards"), more: false },
  { href: "/insights", label: "Insights", match: (path: string) => path.startsWith("/insights"), more: false },
  { href: "/events", label: "Events", match: (path: string) => path.startsWith("/events"), more: false },
  { href: "/replay", label: "Replay", match: (path: string) => path.startsWith("/replay"), more: true },
  { href: "/persons", label: "Persons", match: (path: string) => path.startsWith("/persons"), more: false },
  { href: "/actions", label: "Actions", match: (path: string) => path.startsWith("/actions"), more: true },
  { href: "/surveys", label: "Surveys", match: (path: string) => path.startsWith("/surveys"), more: "always" },
  { href: "/early-access", label: "Early access", match: (path: string) => path.startsWith("/early-access"), more: "always" },
  { href: "/cohorts", label: "Cohorts", match: (path: string) => path.startsWith("/cohorts"), more: true },
  { href: "/feature-flags", label: "Feature flags", match: (path: string) => path.startsWith("/feature-flags"), more: false },
  { href: "/experiments", label: "Experiments", match: (path: string) => path.startsWith("/experiments"), more: "always" },
  { href: "/destinations", label: "Destinations", match: (path: string) => path.startsWith("/destinations"), more: "always" },
  { href: "/alerts", label: "Alerts", match: (path: string) => path.startsWith("/alerts"), more: "always" },
  { href: "/batch-exports", label: "Batch exports", match: (path: string) => path.startsWith("/batch-exports"), more: "always" },
  { href: "/pipeline", label: "Pipeline", match: (path: string) => path.startsWith("/pipeline"), more: true },
  { href: "/settings/project", label: "Settings", match: (path: string) => path.startsWith("/settings"), more: true },
] as const satisfies readonly { href: string; label: string; match: (path: string) => boolean; more: boolean | "always" }[];
