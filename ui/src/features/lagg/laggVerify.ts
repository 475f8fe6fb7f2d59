/**
 * "Measure on the lab" in the LAGG view: the form to tengig.lagg.verify's options, its live samples,
 * and its LaggVerification as the view shows it: per test (read/write x 1/N flows) measured vs
 * expected with the status and the reason, and each member's share of the bytes (idle ones named).
 * Rates are bits/s shown in Mb/s or Gb/s (10^6 / 10^9 bits per second); member bytes in MB (10^6). Pure.
 */
import type {
  Direction, LaggBalance, LaggComparison, LaggComparisonStatus, LaggVerification, LaggVerifyOptions,
} from '../../api/types'
import { formatBitRate, formatBytes, formatPercent } from '../../lib/format'
import type { LiveSample } from '../../lib/liveSamples'

export interface MeasureDraft {
  /** The lab host that runs the iperf3 client; empty: the server's default (the first client). */
  client: string
  seconds: string
  omit: string
  laggAddress: string
  clientAddress: string
}

export const EMPTY_MEASURE: MeasureDraft = { client: 'desk', seconds: '5', omit: '2', laggAddress: '', clientAddress: '' }

const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : null)
/** A dotted-quad IPv4 address, each part 0-255. */
export const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/
const HOST = /^[a-z][a-z0-9-]{0,30}$/

/** The options tengig.lagg.verify takes, or [field path, message] per mistake (paths as the server's). */
export function measureOptions(draft: MeasureDraft):
  { ok: true; options: LaggVerifyOptions } | { ok: false; errors: [string, string][] } {
  const errors: [string, string][] = []
  const client = draft.client.trim()
  if (client && !HOST.test(client)) errors.push(['options.client', `${JSON.stringify(client)}: write a lab host name such as desk`])
  const seconds = whole(draft.seconds)
  if (seconds === null || seconds < 2 || seconds > 120) {
    errors.push(['options.seconds', `${JSON.stringify(draft.seconds)}: measure each test for 2 to 120 seconds`])
  }
  const omit = whole(draft.omit)
  if (omit === null || omit > 10) errors.push(['options.omit', `${JSON.stringify(draft.omit)}: leave out 0 to 10 seconds of ramp-up`])
  const addresses: [keyof LaggVerifyOptions, string, string][] = [
    ['lagg_address', 'options.lagg_address', draft.laggAddress.trim()],
    ['client_address', 'options.client_address', draft.clientAddress.trim()],
  ]
  for (const [, field, value] of addresses) {
    if (value && !IPV4.test(value)) errors.push([field, `${JSON.stringify(value)} is not an IPv4 address (e.g. 10.250.12.1)`])
  }
  if (errors.length) return { ok: false, errors }
  const options: LaggVerifyOptions = { seconds: seconds!, omit: omit! }
  if (client) options.client = client
  for (const [key, , value] of addresses) if (value) (options as Record<string, unknown>)[key] = value
  return { ok: true, options }
}

const DIRECTION_WORDS: Record<Direction, string> = { read: 'read (NAS sends)', write: 'write (NAS receives)' }
const flowWords = (flows: number) => `${flows} flow${flows === 1 ? '' : 's'}`

export const STATUS_WORDS: Record<LaggComparisonStatus, string> = {
  'as-expected': 'as expected',
  above: 'above the plan',
  'low-end': "at the plan's low end",
  below: "below the plan's low end",
}

export interface MemberBar {
  name: string
  /** 0..100, the bar's width. */
  percent: number
  /** "100.0%" */
  shareText: string
  /** "354.8 MB" (sent for a read, received for a write) */
  bytesText: string
  idle: boolean
  /** "eth-desk 100.0% (354.8 MB)" or "eth-lab idle: 0.0% (336 B)" */
  text: string
}

export interface TestView {
  key: string
  direction: Direction
  flows: number
  /** "read (NAS sends), 1 flow" */
  title: string
  measured: string
  expected: string
  low: string
  /** "100% of expected" */
  percent: string
  status: LaggComparisonStatus
  statusText: string
  reason: string
  members: MemberBar[]
  idle: string[]
  /** "eth-desk carried it; eth-lab idle (under 1% of the bytes)" / "busiest 3.2× the quietest"; null without counters. */
  skewText: string | null
}

function memberBars(balance: LaggBalance | undefined): MemberBar[] {
  if (!balance) return []
  return balance.shares.map((s) => {
    const idle = balance.idle.includes(s.name)
    const shareText = formatPercent(s.share * 100)
    const bytesText = formatBytes(s.bytes)
    return {
      name: s.name, percent: Math.max(0, Math.min(100, s.share * 100)), shareText, bytesText, idle,
      text: idle ? `${s.name} idle: ${shareText} (${bytesText})` : `${s.name} ${shareText} (${bytesText})`,
    }
  })
}

function skewText(balance: LaggBalance | undefined): string | null {
  if (!balance) return null
  if (balance.idle.length) {
    const carried = balance.shares.filter((m) => !balance.idle.includes(m.name)).map((m) => m.name)
    return `${carried.join(', ') || 'no member'} carried it; ${balance.idle.join(', ')} idle (under 1% of the bytes)`
  }
  if (balance.skew === null) return 'a member moved nothing'
  if (balance.skew < 1.1) return `even (busiest ${balance.skew.toFixed(2)}× the quietest)`
  return `busiest ${balance.skew.toFixed(1)}× the quietest`
}

const testKey = (t: { direction: Direction; flows: number }) => `${t.direction}-${t.flows}`

/** One view per measured test, reads first, then by flow count; each with its members' shares. */
export function verificationTests(v: LaggVerification): TestView[] {
  const balances = new Map(v.verdict.balance.map((b) => [testKey(b), b]))
  const order = (c: LaggComparison) => (c.direction === 'read' ? 0 : 1) * 1e6 + c.flows
  return [...v.verdict.comparisons].sort((a, b) => order(a) - order(b)).map((c) => {
    const balance = balances.get(testKey(c))
    return {
      key: testKey(c),
      direction: c.direction,
      flows: c.flows,
      title: `${DIRECTION_WORDS[c.direction]}, ${flowWords(c.flows)}`,
      measured: formatBitRate(c.measured_bps),
      expected: formatBitRate(c.expected_bps),
      low: formatBitRate(c.low_bps),
      percent: `${Math.round(c.percent_of_expected)}% of expected`,
      status: c.status,
      statusText: STATUS_WORDS[c.status],
      reason: c.reason,
      members: memberBars(balance),
      idle: balance?.idle ?? [],
      skewText: skewText(balance),
    }
  })
}

/** "Measured from desk to nas at 10.250.12.1: 2 as expected, 2 at the plan's low end; eth-lab idle in every test." */
export function verificationHeadline(v: LaggVerification): string {
  const counts = new Map<LaggComparisonStatus, number>()
  for (const c of v.verdict.comparisons) counts.set(c.status, (counts.get(c.status) ?? 0) + 1)
  const statuses = (Object.keys(STATUS_WORDS) as LaggComparisonStatus[]).filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${STATUS_WORDS[s]}`).join(', ')
  const tests = v.verdict.balance.length
  const idleCount = new Map<string, number>()
  for (const b of v.verdict.balance) for (const name of b.idle) idleCount.set(name, (idleCount.get(name) ?? 0) + 1)
  const idle = [...idleCount].map(([name, n]) => `${name} idle in ${n === tests ? 'every test' : `${n} of ${tests} tests`}`)
  return `Measured from ${v.client} to ${v.nas} at ${v.lagg_address}: ${statuses || 'no test'}` +
    (idle.length ? `; ${idle.join(', ')}.` : '.')
}

export interface LiveTest {
  /** "read, 1 flow" */
  label: string
  /** "941.4 Mb/s" */
  rate: string
}

/** The tests finished so far, from the job's live samples ({phase: "lagg read 1 flow(s)", bytes_per_s}). */
export function liveTests(samples: LiveSample[]): LiveTest[] {
  const out = new Map<string, LiveTest>()
  for (const s of samples) {
    const m = /^lagg (read|write) (\d+) flow/.exec(s.phase)
    if (!m) continue
    out.set(`${m[1]}-${m[2]}`, { label: `${m[1]}, ${flowWords(Number(m[2]))}`, rate: formatBitRate(s.bytesPerS * 8) })
  }
  return [...out.values()]
}
