/**
 * tengig.mesh.verify and tengig.mesh.apply results as the mesh view shows them: per cable (diagram
 * edge) whether it passed, each end's ping / DF ping / name checks, and the measured goodput against
 * the cable's ceiling in each direction; per host what apply changed. Pure.
 */
import type { LinkCheck, MeshApplyResult, MeshPlan, MeshVerifyResult } from '../../api/types'
import { BITS_PER_MB } from '../../lib/format'

export type CheckState = 'ok' | 'bad' | 'unchecked'

export interface EndStatus {
  host: string
  port: string
  ping: CheckState
  df: CheckState
  name: CheckState
  rttMs: number | null
  /** "ping ok 0.21 ms · DF 1472 ok · name ok" */
  text: string
}

export interface DirectionStatus {
  sender: string
  receiver: string
  goodputMbps: number
  ceilingMbps: number
  percent: number
  ok: boolean
  /** "nas → lab 9412 / 9490 Mb/s (99%)" */
  text: string
}

export interface EdgeStatus {
  cable: string
  state: CheckState
  ends: EndStatus[]
  directions: DirectionStatus[]
  problems: string[]
}

const mark = (v: boolean | undefined): CheckState => (v === undefined ? 'unchecked' : v ? 'ok' : 'bad')
const word = (s: CheckState) => (s === 'ok' ? 'ok' : s === 'bad' ? 'FAILED' : 'not checked')
const mbps = (bps: number) => Math.round(bps / BITS_PER_MB)

function endStatus(host: string, port: string, link: LinkCheck | undefined): EndStatus {
  const ping = mark(link?.ping_ok)
  const df = mark(link?.df_ok)
  const name = mark(link?.name_ok)
  const rtt = link?.rtt_ms ?? null
  const text = link
    ? `ping ${word(ping)}${rtt !== null ? ` ${rtt.toFixed(2)} ms` : ''} · DF ${link.df_size} ${word(df)} · name ${link.name} ${word(name)}`
    : 'not checked from this end'
  return { host, port, ping, df, name, rttMs: rtt, text }
}

/** One status per plan cable, in plan order; a cable nobody checked is 'unchecked', never 'ok'. */
export function edgeStatuses(plan: MeshPlan, result: MeshVerifyResult): Map<string, EdgeStatus> {
  const out = new Map<string, EdgeStatus>()
  for (const cable of plan.cables) {
    const links = result.links.filter((l) => l.cable === cable.id)
    const ends = [cable.a, cable.b].map((end) => endStatus(end.host, end.port, links.find((l) => l.host === end.host)))
    const directions = result.matrix.filter((m) => m.cable === cable.id).map((m) => ({
      sender: m.sender,
      receiver: m.receiver,
      goodputMbps: mbps(m.goodput_bps),
      ceilingMbps: mbps(m.ceiling_bps),
      percent: m.percent_of_ceiling,
      ok: m.reaches_ceiling,
      text: `${m.sender} → ${m.receiver} ${mbps(m.goodput_bps)} / ${mbps(m.ceiling_bps)} Mb/s (${Math.round(m.percent_of_ceiling)}%)`,
    }))
    const problems = [
      ...links.flatMap((l) => l.problems),
      ...directions.filter((d) => !d.ok).map((d) => `${d.text}: below ${result.min_percent}% of the ceiling`),
      ...result.asymmetric.filter((a) => a.cable === cable.id)
        .map((a) => `the two directions differ by ${Math.round(a.difference_percent)}%`),
    ]
    const checks = [...ends.flatMap((e) => [e.ping, e.df, e.name]), ...directions.map((d) => mark(d.ok))]
    const state: CheckState = checks.includes('bad') || problems.length ? 'bad' : checks.includes('unchecked') ? 'unchecked' : 'ok'
    out.set(cable.id, { cable: cable.id, state, ends, directions, problems })
  }
  return out
}

/** Per host, what apply changed, or that it already matched the plan. */
export function applySummary(results: MeshApplyResult[]): { host: string; lines: string[]; persistent: boolean }[] {
  return results.map((r) => ({
    host: r.host,
    persistent: r.persistent,
    lines: r.changed && r.changes.length ? r.changes : ['already as planned'],
  }))
}

/** The confirmation text before applying: which hosts will be reconfigured, on which system. */
export function applyConfirmation(system: 'lab' | 'local' | 'truenas', hosts: string[]): string {
  const where = system === 'lab' ? 'the lab' : system === 'truenas' ? 'the TrueNAS (commit, probe, then checkin)' : 'this machine'
  return `Apply the plan on ${where}: ${hosts.join(', ')} will get the planned addresses, MTU and hosts entries `
    + '(a host that already matches is left untouched).'
}
