/** Tailwind 4 runs as a PostCSS plugin; its theme tokens live in tailwind.config.ts. */
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
