/**
 * The LAGG form (platform, topology, goal, clients, pinned members) over a NIC inventory, to and from
 * the LaggRequest tengig.lagg.plan / validate take, and their answers as the view shows them. Pure.
 */
import type {
  ApiCall, ExpectedThroughput, LaggGoal, LaggPlan, LaggPlatform, LaggRequest, LaggTopology, Nic, RenderedLagg,
} from '../../api/types'
import { formatGbps, formatLinkSpeed } from '../../lib/format'

export const PLATFORMS: LaggPlatform[] = ['truenas-scale', 'truenas-core', 'linux', 'freebsd']
export const TOPOLOGIES: { value: LaggTopology; label: string }[] = [
  { value: 'lacp-switch', label: 'a switch that speaks LACP (802.3ad)' },
  { value: 'unmanaged-switch', label: 'an unmanaged switch' },
  { value: 'switchless-peer', label: 'cables straight to one peer' },
  { value: 'many-clients', label: 'many clients behind any switch' },
]
export const GOALS: { value: LaggGoal; label: string }[] = [
  { value: 'aggregate-many-clients', label: 'more total throughput for many clients' },
  { value: 'one-client-faster', label: 'one client faster' },
  { value: 'failover', label: 'keep working when a link fails' },
]

export interface LaggDraft {
  platform: LaggPlatform
  topology: LaggTopology
  goal: LaggGoal
  clientCount: string
  /** Ports the user pins as members; empty: the planner picks. */
  pinned: string[]
  mtu: string
  confirmSession: boolean
  /** Members with their own addresses are reset by the plan (else refused, as TrueNAS does). */
  clearMemberConfig: boolean
  /** Address/prefix the LAGG gets (e.g. 10.20.0.5/24); empty: none. */
  address?: string
}

export const EMPTY_DRAFT: LaggDraft = {
  platform: 'truenas-scale', topology: 'lacp-switch', goal: 'aggregate-many-clients', clientCount: '4', pinned: [],
  mtu: '1500', confirmSession: false, clearMemberConfig: false,
}

/** Ports a LAGG can be made of: physical ones (bonds, bridges, VLANs and loopback never). */
export function candidateNics(nics: Nic[]): Nic[] {
  return nics.filter((n) => n.kind === 'physical')
}

/** One line per port for the inventory table: what the planner will weigh. */
export function nicSummary(nic: Nic): string {
  const speed = nic.speed_bps ? formatLinkSpeed(nic.speed_bps) : 'no speed'
  const parts = [`link ${nic.link}`, speed, `MTU ${nic.mtu}`, nic.card ? `card ${nic.card}` : 'card unknown']
  if (nic.addresses.length) parts.push(nic.addresses.join(' '))
  if (nic.in_use_by) parts.push(`member of ${nic.in_use_by}`)
  if (nic.carries_session) parts.push('carries this session')
  return parts.join(' · ')
}

const whole = (text: string) => /^\d+$/.test(text.trim()) ? Number(text) : null

export function draftToRequest(draft: LaggDraft, nics: Nic[]):
  { ok: true; request: LaggRequest } | { ok: false; errors: [string, string][] } {
  const errors: [string, string][] = []
  if (!nics.length) errors.push(['nics', 'load the NIC inventory first (this machine or a lab host)'])
  const clients = whole(draft.clientCount)
  if (clients === null || clients < 1) errors.push(['client_count', `${JSON.stringify(draft.clientCount)}: write how many clients, 1 or more`])
  const mtu = whole(draft.mtu)
  if (mtu === null) errors.push(['options.mtu', `${JSON.stringify(draft.mtu)} is not a whole number of bytes`])
  const address = (draft.address ?? '').trim()
  if (address && !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(address)) {
    errors.push(['options.address', `${JSON.stringify(address)}: write an IPv4 address with its prefix, e.g. 10.20.0.5/24`])
  }
  const known = new Set(nics.map((n) => n.name))
  draft.pinned.filter((p) => !known.has(p)).forEach((p) => errors.push(['options.members', `${p} is not in the inventory`]))
  if (errors.length) return { ok: false, errors }
  return {
    ok: true,
    request: {
      nics, platform: draft.platform, topology: draft.topology, goal: draft.goal, client_count: clients!,
      options: { mtu: mtu!, members: draft.pinned.length ? [...draft.pinned] : null, confirm_session_interface: draft.confirmSession,
        clear_member_config: draft.clearMemberConfig, ...(address ? { address } : {}) },
    },
  }
}

export interface ThroughputRow {
  direction: string
  flows: number
  expected: string
  worst: string
  multiple: string
  reason: string
}


/** The plan's expectations per direction, 1 flow first, then N flows; read is the NAS sending. */
export function throughputRows(throughput: ExpectedThroughput[]): ThroughputRow[] {
  const order = (t: ExpectedThroughput) => (t.direction === 'read' ? 0 : 1) * 1e6 + t.flows
  return [...throughput].sort((a, b) => order(a) - order(b)).map((t) => ({
    direction: t.direction === 'read' ? 'read (NAS sends)' : 'write (NAS receives)',
    flows: t.flows,
    expected: formatGbps(t.bps),
    worst: formatGbps(t.low_bps),
    multiple: `×${t.multiple.toFixed(1)}`,
    reason: t.reason,
  }))
}

/** The plan's headline: "bond0: LACP over enp3s0f0, enp4s0f0, hash LAYER3+4, MTU 1500". */
export function planHeadline(plan: LaggPlan): string {
  const extra = [plan.xmit_hash_policy ? `hash ${plan.xmit_hash_policy}` : null, plan.lacpdu_rate ? `LACPDU ${plan.lacpdu_rate}` : null,
    `MTU ${plan.mtu}`].filter(Boolean)
  const native = plan.protocol_native === plan.protocol ? '' : ` (${plan.protocol_native})`
  return `${plan.name}: ${plan.protocol}${native} over ${plan.members.map((m) => m.name).join(', ') || 'no member'}, ${extra.join(', ')}`
}

const callLine = (c: ApiCall) => `${c.method} ${JSON.stringify(c.params)}`
const argvLine = (argv: string[]) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')

/** What apply would run, in order: TrueNAS calls (staged, commit, check-in) or argv lists; and the undo. */
export function applySteps(rendered: RenderedLagg): { run: string[]; undo: string[] } {
  const run = [
    ...rendered.api_calls.map(callLine),
    ...(rendered.commit ? [`${callLine(rendered.commit)}   (goes live; rolls back by itself unless checked in)`] : []),
    ...(rendered.checkin ? [`${callLine(rendered.checkin)}   (keeps it; from a session that still works)`] : []),
    ...rendered.commands.map(argvLine),
  ]
  const undo = [...rendered.undo_calls.map(callLine), ...rendered.undo.map(argvLine)]
  return { run, undo }
}
