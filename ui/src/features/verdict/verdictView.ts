/**
 * The verdict as the panel shows it: per direction, SMB against the target with the margin, and the
 * ceilings chain (pool -> link -> network -> SMB) as bars on one scale with the target as a line.
 * Pure: a missing number says so in words, it never becomes 0.
 */
import type { Ceiling, Component, DirectionVerdict, Provenance, Verdict } from '../../api/types'
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

export function ceilingChart(dv: DirectionVerdict): CeilingChart {
  const ceilings = [...dv.ceilings].sort(byChain)
  const scale = Math.max(...ceilings.map((c) => c.bytes_per_s), dv.target_bytes_per_s ?? 0) * 1.1
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
    charts: directions.map(ceilingChart),
    advice: verdict.advice,
  }
}
