/** The signed-in app's main navigation. */
export const NAV_LINKS = [
  { href: "/", label: "Home", match: (path: string) => path === "/" },
  { href: "/events", label: "Events", match: (path: string) => path.startsWith("/events") },
  { href: "/settings/project", label: "Settings", match: (path: string) => path.startsWith("/settings") },
] as const;
