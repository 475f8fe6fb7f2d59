/**
 * Names of the TrueNAS middleware methods the panel calls. The typed client
 * that sends them arrives with the benchmark endpoints.
 */
export const API_METHODS = {
  ping: 'core.ping',
  benchRun: 'tengig.bench.run',
} as const

export type ApiMethod = (typeof API_METHODS)[keyof typeof API_METHODS]
