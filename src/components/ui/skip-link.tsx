/** The first focusable element of every page: jumps keyboard users past the top bar to `#main`. */
export function SkipLink() {
  return (
    <a
      href="#main"
      className="sr-only rounded-control bg-white px-3 py-2 text-sm font-medium text-gray-900 shadow-card focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50"
    >
      Skip to content
    </a>
  );
}
