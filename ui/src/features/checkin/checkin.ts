/**
 * An apply job that waits for a person's confirmation (wait_for_checkin): what its progress.extra.checkin
 * says, and the countdown the panel shows beside its Confirm button. Pure.
 */
import type { CheckinProgress, Job } from '../../api/types'

/** The job's checkin state, or null when it never asked for one (or is not a job at all). */
export function checkinOf(job: Job | null | undefined): CheckinProgress | null {
  const extra = job?.progress?.extra
  if (!extra || typeof extra !== 'object' || !('checkin' in extra)) return null
  const c = (extra as { checkin: unknown }).checkin
  if (!c || typeof c !== 'object') return null
  const { waiting, seconds_left, timeout, method } = c as Record<string, unknown>
  if (typeof waiting !== 'boolean' || typeof seconds_left !== 'number' || typeof timeout !== 'number' || typeof method !== 'string') return null
  return { waiting, seconds_left, timeout, method }
}

/**
 * Seconds left now: the server's last count, less the time since it arrived (the server ticks about once
 * a second; between its events the panel counts on by itself). Never below 0.
 */
export function secondsLeft(c: CheckinProgress, receivedAtMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil(c.seconds_left - Math.max(0, nowMs - receivedAtMs) / 1000))
}

/** The line beside the Confirm button. */
export function countdownText(left: number, what: string): string {
  if (left <= 0) return `Time is up: ${what} is being taken back.`
  return `${what} is applied. Confirm within ${left} s that this page still reaches the NAS, or it is taken back.`
}

/** The fraction of the time used, 0..1, for the countdown bar. */
export function elapsedFraction(left: number, timeout: number): number {
  if (timeout <= 0) return 1
  return Math.min(1, Math.max(0, 1 - left / timeout))
}
