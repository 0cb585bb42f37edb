/** The signed-in app's main navigation. */
export const NAV_LINKS = [
  { href: "/", label: "Home", match: (path: string) => path === "/" },
  { href: "/web", label: "Web analytics", match: (path: string) => path.startsWith("/web") },
  { href: "/dashboards", label: "Dashboards", match: (path: string) => path.startsWith("/dashboards") },
  { href: "/insights", label: "Insights", match: (path: string) => path.startsWith("/insights") },
  { href: "/events", label: "Events", match: (path: string) => path.startsWith("/events") },
  { href: "/persons", label: "Persons", match: (path: string) => path.startsWith("/persons") },
  { href: "/cohorts", label: "Cohorts", match: (path: string) => path.startsWith("/cohorts") },
  { href: "/feature-flags", label: "Feature flags", match: (path: string) => path.startsWith("/feature-flags") },
  { href: "/pipeline", label: "Pipeline", match: (path: string) => path.startsWith("/pipeline") },
  { href: "/settings/project", label: "Settings", match: (path: string) => path.startsWith("/settings") },
] as const;
