/** The run history as table rows, a chart over time, and a comparison of two runs. Pure. */
import type { CeilingChange, Comparison, MetricDelta, RunEntry, Verdict } from '../../api/types'
import { formatGbps, formatMBps, formatPercent, formatWhen } from '../../lib/format'
import { COMPONENT_NAMES, clientsAtOnceText, multiClientNames, reportOf } from '../verdict/verdictView'

export interface RunRow {
  id: number
  when: string
  kind: string
  status: string
  target: string
  smbRead: string
  smbWrite: string
  /** Both in one cell: "195.8 / 188.5 MB/s" ('—' for a run with no numbers). */
  smb: string
  /** One line per run, in three parts: the result ("loses", "beats", "mixed", "failed: why", ...), */
  result: string
  /** the margin per direction that has a target figure ("read -48.3%"), */
  margin: string
  /** and what bounds it ("Link", or "read Pool, write Link" when the directions differ). */
  bottleneck: string
  /** 'beats' | 'loses' | 'mixed' | 'unknown': colours the result. */
  outcome: 'beats' | 'loses' | 'mixed' | 'unknown'
  /** A run of several clients at once: "2 clients at once (desk, lab)"; '' for one client. */
  clients: string
}

/** The verdict a run's row and the chart show: a multi-client run's aggregate, else the run's own verdict. */
export function headlineVerdict(run: RunEntry): Verdict | null {
  return multiClientNames(reportOf(run.results)).length ? (reportOf(run.results)?.aggregate_verdict ?? null) : run.verdict
}

function smbOf(run: RunEntry, direction: 'read' | 'write'): number | null {
  return headlineVerdict(run)?.directions.find((d) => d.direction === direction)?.smb_bytes_per_s ?? null
}

/** What a verdict comes to, in one line: result, margin per judged direction, bottleneck. */
export function verdictLine(verdict: Verdict): Pick<RunRow, 'result' | 'margin' | 'bottleneck' | 'outcome'> {
  const directions = [...verdict.directions].sort((a, b) => (a.direction < b.direction ? -1 : 1))
  const judged = directions.filter((d) => d.beats_target !== null && d.margin_percent !== null)
  const beats = new Set(judged.map((d) => d.beats_target))
  const outcome = !judged.length ? 'unknown' : beats.size > 1 ? 'mixed' : beats.has(true) ? 'beats' : 'loses'
  const result = outcome !== 'unknown' ? outcome
    : directions.some((d) => d.smb_bytes_per_s !== null) ? 'no target figure' : 'not measured'
  const names = directions.map((d) => (d.bottleneck ? COMPONENT_NAMES[d.bottleneck] : 'unknown'))
  return {
    outcome,
    result,
    margin: judged.map((d) => `${d.direction} ${formatPercent(d.margin_percent!, { signed: true })}`).join(', ') || '—',
    bottleneck: new Set(names).size === 1 ? names[0] : directions.map((d, i) => `${d.direction} ${names[i]}`).join(', ') || 'unknown',
  }
}

function smbPair(read: string, write: string): string {
  if (read === '—' && write === '—') return '—'
  const unit = ' MB/s'
  return read.endsWith(unit) && write.endsWith(unit) ? `${read.slice(0, -unit.length)} / ${write}` : `${read} / ${write}`
}

/**
 * One row per run, one line each (the summary paragraph stays in the verdict view). A run of several
 * clients at once shows the aggregate verdict (what the NAS served to all of them together) and says how
 * many clients.
 */
export function runRow(run: RunEntry): RunRow {
  const report = reportOf(run.results)
  const names = multiClientNames(report)
  const verdict = headlineVerdict(run)
  const smb = (direction: 'read' | 'write') => {
    if (run.status !== 'success') return '—'
    const v = smbOf(run, direction)
    return v === null ? 'not measured' : formatMBps(v)
  }
  const none = { margin: '—', bottleneck: '—', outcome: 'unknown' as const }
  let line: Pick<RunRow, 'result' | 'margin' | 'bottleneck' | 'outcome'>
  if (run.status === 'success') line = verdict ? verdictLine(verdict) : { ...none, result: names.length ? 'no aggregate verdict' : 'no verdict' }
  else if (run.status === 'running') line = { ...none, result: 'running' }
  else line = { ...none, result: `${run.status}: ${run.error ?? 'no reason recorded'}` }
  return {
    id: run.id,
    when: formatWhen(run.started),
    kind: run.kind,
    status: run.status,
    target: String(run.inputs.target ?? run.verdict?.target.name ?? ''),
    smbRead: smb('read'),
    smbWrite: smb('write'),
    smb: smbPair(smb('read'), smb('write')),
    ...line,
    clients: names.length ? clientsAtOnceText(names) : '',
  }
}

/** uPlot data for successful runs, oldest first: [epoch s, SMB read MB/s, SMB write MB/s] (a multi-client
 * run's point is its aggregate, as in its row). */
export function historyChartData(runs: RunEntry[]): [number[], (number | null)[], (number | null)[]] {
  const ok = runs.filter((r) => r.status === 'success').sort((a, b) => a.started - b.started)
  const mb = (v: number | null) => (v === null ? null : Math.round(v / 1e4) / 100)
  return [ok.map((r) => r.started), ok.map((r) => mb(smbOf(r, 'read'))), ok.map((r) => mb(smbOf(r, 'write')))]
}

export interface MetricRow {
  path: string
  a: string
  b: string
  delta: string
  percent: string
  direction: 'up' | 'down' | 'same'
}

function formatValue(value: number, unit: string): string {
  if (unit === 'B/s') return formatMBps(Math.abs(value)).replace(/^/, value < 0 ? '-' : '')
  if (unit === 'bit/s') return formatGbps(Math.abs(value)).replace(/^/, value < 0 ? '-' : '')
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2)
  return unit ? `${text} ${unit}` : text
}

/** The numbers a person compares first: throughput medians, goodput, the verdict's SMB figures. */
export const HEADLINE = /(bytes_per_s\.median|goodput_bps|smb_bytes_per_s|margin_percent)$/

export function metricRows(cmp: Comparison, headlineOnly: boolean): MetricRow[] {
  return Object.entries(cmp.metrics)
    .filter(([path]) => !headlineOnly || HEADLINE.test(path))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, m]: [string, MetricDelta]) => ({
      path,
      a: formatValue(m.a, m.unit),
      b: formatValue(m.b, m.unit),
      delta: (m.delta > 0 ? '+' : '') + formatValue(m.delta, m.unit),
      percent: m.delta_percent === null ? 'n/a (a is 0)' : formatPercent(m.delta_percent, { signed: true }),
      direction: m.delta > 0 ? 'up' : m.delta < 0 ? 'down' : 'same',
    }))
}

// --- which ceiling moved between two runs (tengig.results.compare's ceilings) ---

export interface CeilingRow {
  /** "aggregate read", "desk write" */
  where: string
  component: string
  a: string
  b: string
  percent: string
  /** Where the bottleneck was: "both", "run a only", "run b only", or ''. */
  bottleneck: string
  moved: boolean
  direction: 'up' | 'down' | 'same'
}

const rate = (v: number | null) => (v === null ? 'absent' : formatMBps(v))

/**
 * Every ceiling of every verdict's chain in both runs, or (``movedOnly``) just those that moved or were a
 * bottleneck in either run: what a "before and after" comparison asks first.
 */
export function ceilingRows(cmp: Comparison, movedOnly: boolean): CeilingRow[] {
  return (cmp.ceilings ?? [])
    .filter((c) => !movedOnly || c.moved || c.bottleneck_a || c.bottleneck_b)
    .map((c: CeilingChange) => ({
      where: `${c.scope} ${c.direction}`,
      component: COMPONENT_NAMES[c.component],
      a: rate(c.a),
      b: rate(c.b),
      percent: c.delta_percent === null ? 'n/a' : formatPercent(c.delta_percent, { signed: true }),
      bottleneck: c.bottleneck_a && c.bottleneck_b ? 'both' : c.bottleneck_a ? 'run a only' : c.bottleneck_b ? 'run b only' : '',
      moved: c.moved,
      direction: c.delta_percent === null || !c.moved ? 'same' : c.delta_percent > 0 ? 'up' : 'down',
    }))
}

/** The server's one line per ceiling that moved (or bottleneck that changed), or that none did. */
export function movedLines(cmp: Comparison): string[] {
  if (cmp.moved === undefined) return []
  return cmp.moved.length ? cmp.moved : ['No ceiling moved by 5% or more, and every bottleneck stayed where it was.']
}
