/**
 * The live samples a tengig job puts in its progress.extra: {phase, bytes_per_s, ...}, one per measured
 * test as it ends (the bench suite, the LAGG measurement). Pure; any view or composable may use it.
 */

export interface LiveSample {
  /** Seconds since the job started. */
  t: number
  phase: string
  /** Bytes per second (the job's bytes_per_s). */
  bytesPerS: number
}

function sampleOf(extra: unknown): { phase: string; bytes_per_s: number } | null {
  if (!extra || typeof extra !== 'object') return null
  const { phase, bytes_per_s } = extra as Record<string, unknown>
  if (typeof phase !== 'string' || typeof bytes_per_s !== 'number' || !Number.isFinite(bytes_per_s)) return null
  return { phase, bytes_per_s }
}

/**
 * Adds the job's latest live sample (progress.extra: {phase, bytes_per_s, ...}) when it is new.
 * `lastExtra` is the JSON of the extra seen last: a progress event repeats the old extra.
 */
export function addSample(
  samples: LiveSample[],
  lastExtra: string | null,
  extra: unknown,
  t: number,
): { samples: LiveSample[]; lastExtra: string | null } {
  const text = extra === null || extra === undefined ? null : JSON.stringify(extra)
  const sample = sampleOf(extra)
  if (!sample || text === lastExtra) return { samples, lastExtra: text ?? lastExtra }
  return { samples: [...samples, { t, phase: sample.phase, bytesPerS: sample.bytes_per_s }], lastExtra: text }
}
