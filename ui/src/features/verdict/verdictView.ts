/**
 * The verdict as the panel shows it: per direction, SMB against the target with the margin, and the
 * ceilings chain (pool -> link -> network -> SMB) as bars with the target as a line, read and write on one
 * scale per verdict.
 * Pure: a missing number says so in words, it never becomes 0.
 */
import type { BenchReport, Ceiling, Component, DirectionVerdict, Provenance, Verdict } from '../../api/types'
import { formatMBps, formatPercent } from '../../lib/format'

export const CHAIN: Component[] = ['pool', 'link', 'network', 'smb']

export const COMPONENT_NAMES: Record<Component, string> = {
  pool: 'Pool',
  link: 'Link',
  network: 'Network',
  smb: 'SMB',
}

export interface DirectionRow {
  direction: 'read' | 'write'
  smb: string
  target: string
  result: string
  outcome: 'beats' | 'loses' | 'unknown'
  bottleneck: string
}

export function marginText(dv: DirectionVerdict): string {
  if (dv.target_bytes_per_s === null) return 'no target figure'
  if (dv.smb_bytes_per_s === null || dv.margin_percent === null) return 'not measured'
  const size = formatPercent(Math.abs(dv.margin_percent))
  return dv.beats_target ? `beats by ${size}` : `loses by ${size}`
}

export function directionRow(dv: DirectionVerdict): DirectionRow {
  return {
    direction: dv.direction,
    smb: dv.smb_bytes_per_s === null ? 'not measured' : formatMBps(dv.smb_bytes_per_s),
    target: dv.target_bytes_per_s === null ? 'no target figure' : formatMBps(dv.target_bytes_per_s),
    result: marginText(dv),
    outcome: dv.beats_target === null ? 'unknown' : dv.beats_target ? 'beats' : 'loses',
    bottleneck: dv.bottleneck ? COMPONENT_NAMES[dv.bottleneck] : 'unknown',
  }
}

export interface CeilingBar {
  component: Component
  name: string
  value: string
  /** 0-100: share of the chart's width. */
  widthPercent: number
  provenance: Provenance
  label: string
  bottleneck: boolean
}

export interface CeilingChart {
  direction: 'read' | 'write'
  bars: CeilingBar[]
  /** 0-100 where the target line sits; null when the target gives no figure for this direction. */
  targetPercent: number | null
  targetText: string | null
  /** Components of the chain with no ceiling in this run (not measured, e.g. a kind=net run). */
  missing: string[]
}

function byChain(a: Ceiling, b: Ceiling): number {
  return CHAIN.indexOf(a.component) - CHAIN.indexOf(b.component)
}

/** The bytes/s a chart's full width stands for: 1.1 x the largest ceiling or target of the given directions.
 * One verdict's directions share it, so equal figures get equal bars in read and write. */
export function chartScale(directions: DirectionVerdict[]): number {
  return Math.max(0, ...directions.flatMap((dv) => [...dv.ceilings.map((c) => c.bytes_per_s), dv.target_bytes_per_s ?? 0])) * 1.1
}

/** One direction's chain as bars; ``scale`` (bytes/s for the full width) defaults to this direction's own. */
export function ceilingChart(dv: DirectionVerdict, scale: number = chartScale([dv])): CeilingChart {
  const ceilings = [...dv.ceilings].sort(byChain)
  const pct = (v: number) => (scale > 0 ? Math.round((1000 * v) / scale) / 10 : 0)
  return {
    direction: dv.direction,
    bars: ceilings.map((c) => ({
      component: c.component,
      name: COMPONENT_NAMES[c.component],
      value: formatMBps(c.bytes_per_s),
      widthPercent: pct(c.bytes_per_s),
      provenance: c.provenance,
      label: c.label,
      bottleneck: c.component === dv.bottleneck,
    })),
    targetPercent: dv.target_bytes_per_s === null ? null : pct(dv.target_bytes_per_s),
    targetText: dv.target_bytes_per_s === null ? null : formatMBps(dv.target_bytes_per_s),
    missing: CHAIN.filter((c) => !ceilings.some((x) => x.component === c)).map((c) => COMPONENT_NAMES[c]),
  }
}

export interface VerdictView {
  summary: string
  targetTitle: string
  targetSource: string
  rows: DirectionRow[]
  charts: CeilingChart[]
  advice: Verdict['advice']
}

export function verdictView(verdict: Verdict): VerdictView {
  const directions = [...verdict.directions].sort((a, b) => (a.direction < b.direction ? -1 : 1))
  return {
    summary: verdict.summary,
    targetTitle: verdict.target.title,
    targetSource: verdict.target.source,
    rows: directions.map(directionRow),
    charts: directions.map((dv) => ceilingChart(dv, chartScale(directions))),
    advice: verdict.advice,
  }
}

// --- a run with several clients: the aggregate verdict, then each client's own ---

export const AGGREGATE_HEADING = 'All clients at once'

/** A stored run's results (tengig.results.get) or a finished job's report as a BenchReport; null if not one. */
export function reportOf(results: Record<string, unknown> | null | undefined): BenchReport | null {
  if (!results || !Array.isArray(results.clients)) return null
  return results as unknown as BenchReport
}

/** The client names of a run that measured several clients at once; [] for a run with one client (or none). */
export function multiClientNames(report: BenchReport | null): string[] {
  const names = report?.clients.map((c) => c.client) ?? []
  return names.length > 1 ? names : []
}

/** "2 clients at once (desk, lab)" */
export function clientsAtOnceText(names: string[]): string {
  return `${names.length} clients at once (${names.join(', ')})`
}

export interface AggregateVerdictView extends VerdictView {
  heading: string
  /** "2 clients at once (desk, lab)" */
  clientsText: string
  /** How the clients copied together (smb_concurrent.engine), if the report says. */
  engine: string | null
}

export interface ClientVerdictView {
  /** The client's name as the run reported it (ClientReport.client). */
  name: string
  /** Its own verdict (measured alone); null when the run judged it not (e.g. it measured nothing). */
  view: VerdictView | null
  /** One line for the collapsed block: per direction, SMB, the result and the bottleneck. */
  headline: string
  /** Its SMB while every client copied at once, per direction; null without that measurement. */
  together: string | null
}

export interface RunVerdicts {
  /** Several clients: the aggregate block and one block per client replace the single verdict. */
  multi: boolean
  /** One client: the run's verdict as before (RunEntry.verdict); null in a multi-client run. */
  single: VerdictView | null
  /** Several clients: what the NAS served to all of them at once; null when the run has no aggregate verdict. */
  aggregate: AggregateVerdictView | null
  /** Why a multi-client run has no aggregate verdict ('' otherwise). */
  noAggregate: string
  clients: ClientVerdictView[]
}

function headline(view: VerdictView): string {
  return view.rows
    .map((r) => `${r.direction} ${r.smb}, ${r.result}, bottleneck ${r.bottleneck}`)
    .join('; ')
}

function togetherText(report: BenchReport, name: string): string | null {
  const sc = report.smb_concurrent
  if (!sc) return null
  const parts = [sc.read, sc.write]
    .map((d) => {
      const r = d.per_client[name]
      return r ? `${d.direction} ${formatMBps(r.median)}` : null
    })
    .filter((x): x is string => x !== null)
  return parts.length ? `while all copied at once: ${parts.join(', ')}` : null
}

/**
 * What the verdict view shows for a run: with one client, its verdict (``first``, RunEntry.verdict or
 * BenchOutcome.verdict) exactly as before; with several, the aggregate verdict first, then each client's
 * own verdict under that client's name.
 */
export function runVerdicts(report: BenchReport | null, first: Verdict | null): RunVerdicts {
  const names = multiClientNames(report)
  if (!report || !names.length) {
    return { multi: false, single: first ? verdictView(first) : null, aggregate: null, noAggregate: '', clients: [] }
  }
  const agg = report.aggregate_verdict ?? null
  const clients = report.clients.map((c): ClientVerdictView => {
    const view = c.verdict ? verdictView(c.verdict) : null
    return { name: c.client, view, headline: view ? headline(view) : 'no verdict', together: togetherText(report, c.client) }
  })
  return {
    multi: true,
    single: null,
    aggregate: agg
      ? { ...verdictView(agg), heading: AGGREGATE_HEADING, clientsText: clientsAtOnceText(names), engine: report.smb_concurrent?.engine ?? null }
      : null,
    noAggregate: agg ? '' : 'The clients were not measured all at once in this run (SMB runs only), so there is no aggregate verdict.',
    clients,
  }
}

// --- each desktop's own disk (tengig client join --disk), judged beside the run's target ---

export interface OwnDiskView {
  /** The client's name (ClientReport.client). */
  name: string
  /** SMB against the disk that desktop measured; null when it could not measure it. */
  view: VerdictView | null
  /** Why its disk was not measured, when it was asked to. */
  note: string | null
}

/** One block per desktop that measured its own disk, or was asked to and could not (with why). */
export function ownDiskVerdicts(report: BenchReport | null): OwnDiskView[] {
  return (report?.clients ?? [])
    .filter((c) => c.own_disk_verdict || c.own_disk_note)
    .map((c) => ({ name: c.client, view: c.own_disk_verdict ? verdictView(c.own_disk_verdict) : null, note: c.own_disk_note ?? null }))
}
