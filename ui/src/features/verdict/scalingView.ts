// The pool's thread sweep as the panel draws it (bench/phases/scaling.py): per direction, MB/s per thread
// count with the step where the sweep stopped and the one the verdict used; per member, its wait and busy
// share as bars, the one that stands out marked. MB/s = 10^6 bytes/s.
import type { BenchReport, MemberLoad, ScalingResult, ScalingSweep } from '../../api/types'
import { formatMBps, formatPercent } from '../../lib/format'

export interface ThreadBar {
  threads: number
  value: string // "102.3 MB/s"
  gain: string // "+0.5%" over the step before, '' for the first
  widthPercent: number
  best: boolean // the thread count the verdict used
  last: boolean // the step after which the sweep stopped
}

export interface SweepChart {
  direction: 'read' | 'write'
  bars: ThreadBar[]
  stopped: string // "2 threads: +0.5% over 1: stopped"
  used: string // "the verdict uses 2 threads (102.3 MB/s)"
}

export interface MemberBar {
  name: string
  wait: string // "11.4 ms" or '' when unknown
  waitPercent: number // of the slowest member's wait
  busy: string // "66%" or ''
  busyPercent: number
  standsOut: boolean
}

export interface ScalingView {
  sweeps: SweepChart[]
  members: MemberBar[]
  waitSource: string // where the waits come from: zpool iostat -l or /proc/diskstats
  dragging: string | null
  cores: number
}

export function sweepChart(sweep: ScalingSweep): SweepChart {
  const top = Math.max(...sweep.steps.map((s) => s.bytes_per_s), 1)
  const bars = sweep.steps.map((s, i) => ({
    threads: s.threads,
    value: formatMBps(s.bytes_per_s),
    gain: s.gain_percent === null || s.gain_percent === undefined ? '' : formatPercent(s.gain_percent, { signed: true }),
    widthPercent: (100 * s.bytes_per_s) / top,
    best: s.threads === sweep.best_threads,
    last: i === sweep.steps.length - 1,
  }))
  const used = `the verdict uses ${sweep.best_threads} thread${sweep.best_threads === 1 ? '' : 's'} (${formatMBps(sweep.best_bytes_per_s)})`
  return { direction: sweep.direction, bars, stopped: sweep.stopped, used }
}

function memberBars(members: MemberLoad[], dragging: string | null): MemberBar[] {
  const maxWait = Math.max(...members.map((m) => m.wait_ms ?? 0), 0)
  const named = dragging ? dragging.split(':')[0] : null
  return members.map((m) => ({
    name: m.name,
    wait: m.wait_ms === null || m.wait_ms === undefined ? '' : `${m.wait_ms.toFixed(1)} ms`,
    waitPercent: maxWait > 0 ? (100 * (m.wait_ms ?? 0)) / maxWait : 0,
    busy: m.busy_percent === null || m.busy_percent === undefined ? '' : formatPercent(m.busy_percent, { digits: 0 }),
    busyPercent: m.busy_percent ?? 0,
    standsOut: m.name === named,
  }))
}

export function scalingView(scaling: ScalingResult | null | undefined): ScalingView | null {
  if (!scaling || !scaling.sweeps.length) return null
  const order = { read: 0, write: 1 }
  return {
    sweeps: [...scaling.sweeps].sort((a, b) => order[a.direction] - order[b.direction]).map(sweepChart),
    members: memberBars(scaling.members, scaling.dragging ?? null),
    waitSource: scaling.members.find((m) => m.wait_source)?.wait_source ?? '',
    dragging: scaling.dragging ?? null,
    cores: scaling.cores,
  }
}

export function reportScaling(report: BenchReport | null): ScalingView | null {
  return scalingView(report?.pool?.scaling)
}
