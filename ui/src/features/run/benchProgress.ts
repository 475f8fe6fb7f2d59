/**
 * A benchmark job's progress as phases, and its live samples as chart data. Pure.
 *
 * The suite (middleware/tengig/bench/run/suite.py) runs its steps one after another and gives each an
 * equal share of 0-100%: the pool, then per client the network and SMB, then (several clients) SMB
 * from all of them at once; the verdict comes at 100%. `benchSteps` mirrors that plan so the
 * overall percent can be shown per phase; the job's description says what runs right now.
 */
import type { Job, RunKind } from '../../api/types'
import { BYTES_PER_MB } from '../../lib/format'
import type { LiveSample } from '../../lib/liveSamples'

export interface Step {
  key: string
  label: string
}

/**
 * `concurrent`: the lab suite's last step, several clients at once (a run that desktops join has none);
 * `small`: `all` includes the small-file test (the full preset).
 */
export function benchSteps(kind: RunKind, clients: string[], { concurrent = true, small = false } = {}): Step[] {
  const who = clients.length ? clients : ['first client']
  const steps: Step[] = []
  if (kind === 'pool' || kind === 'all') steps.push({ key: 'pool', label: 'Pool (fio)' })
  for (const c of who) {
    if (kind === 'net' || kind === 'all') steps.push({ key: `net:${c}`, label: `Network ${c} (iperf3)` })
    if (kind === 'smb' || kind === 'all') steps.push({ key: `smb:${c}`, label: `SMB ${c} (smbclient)` })
    if (kind === 'smallfiles' || (kind === 'all' && small)) steps.push({ key: `smallfiles:${c}`, label: `Small files ${c}` })
  }
  if (concurrent && (kind === 'smb' || kind === 'all') && who.length > 1) {
    steps.push({ key: 'smb-concurrent', label: `SMB, ${who.length} clients at once` })
  }
  return steps
}

export type StepState = 'pending' | 'running' | 'done' | 'failed' | 'aborted'

export interface StepProgress extends Step {
  state: StepState
  percent: number
}

/** Each step's state and percent from the job's overall percent and state. */
export function stepProgress(steps: Step[], job: Pick<Job, 'state' | 'progress'> | null): StepProgress[] {
  const overall = job?.progress.percent ?? 0
  const n = steps.length
  return steps.map((step, i) => {
    const lo = (100 * i) / n
    const hi = (100 * (i + 1)) / n
    const percent = Math.max(0, Math.min(100, Math.round(((overall - lo) / (hi - lo)) * 100)))
    let state: StepState = 'pending'
    if (job?.state === 'SUCCESS' || overall >= hi) state = 'done'
    else if (overall >= lo && job) {
      state = job.state === 'FAILED' ? 'failed' : job.state === 'ABORTED' ? 'aborted' : 'running'
    }
    return { ...step, state, percent: job?.state === 'SUCCESS' ? 100 : percent }
  })
}

export const SERIES = ['pool', 'network', 'smb'] as const
export type SeriesName = (typeof SERIES)[number]

export function seriesOf(phase: string): SeriesName | null {
  const first = phase.split(' ', 1)[0]
  return (SERIES as readonly string[]).includes(first) ? (first as SeriesName) : null
}

/** uPlot's aligned data: [x seconds, pool MB/s, network MB/s, SMB MB/s], null where a series has no point. */
export function liveChartData(samples: LiveSample[]): [number[], ...(number | null)[][]] {
  const rows = samples.filter((s) => seriesOf(s.phase) !== null).sort((a, b) => a.t - b.t)
  const x = rows.map((s) => Math.round(s.t * 10) / 10)
  const ys = SERIES.map((name) => rows.map((s) => (seriesOf(s.phase) === name ? s.bytesPerS / BYTES_PER_MB : null)))
  return [x, ...ys]
}
