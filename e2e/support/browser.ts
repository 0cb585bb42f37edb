/**
 * The Chromium the browser tests and bench:pages drive: Debian's old headless shell when it
 * is installed (.ci/run installs it), the same Blink without the full browser's UI (idle on a
 * static page it took 4 ms of CPU a second, the full browser in new headless mode 21).
 * CHROMIUM_PATH picks another.
 */
import fs from "node:fs";

const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";

export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium"),
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
};
