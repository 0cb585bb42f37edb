/** "1.2k in 30 days": how much a definition was used, shown beside a suggestion. */
export function formatVolume(volume: number): string {
  const short = volume >= 1_000_000 ? `${(volume / 1_000_000).toFixed(1)}M` : volume >= 1_000 ? `${(volume / 1_000).toFixed(1)}k` : String(volume);
  return `${short} in 30 days`;
}
