import { describe, expect, it } from 'vitest'
import run from '../../fixtures/run-lab-desk-1g.json'
import joinedReport from '../../fixtures/run-joined-desk-lab.json'
import type { BenchReport, Comparison, RunEntry } from '../../api/types'
import { ceilingRows, headlineVerdict, historyChartData, metricRows, movedLines, runRow, verdictLine } from './history'

const ok = run as unknown as RunEntry
const failed: RunEntry = {
  ...ok, id: 2, started: ok.started + 100, status: 'failed', results: null, verdict: null,
  error: 'smbclient on desk: NT_STATUS_CONNECTION_REFUSED',
}

describe('runRow', () => {
  it('shows a successful run in one line: its SMB figures, result, margin and bottleneck, not the summary', () => {
    const row = runRow(ok)
    expect(row).toMatchObject({ id: 1, kind: 'all', status: 'success', target: 'hdd-15k-best',
      smbRead: '115.5 MB/s', smbWrite: '114.9 MB/s', smb: '115.5 / 114.9 MB/s', result: 'loses', margin: 'read -48.3%', bottleneck: 'Link', outcome: 'loses' })
    expect(Object.values(row)).not.toContain(ok.verdict!.summary)
    expect(row.when).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/)
  })

  it('shows a failed run with its error and no numbers', () => {
    expect(runRow(failed)).toMatchObject({ smbRead: '—', smbWrite: '—', smb: '—', margin: '—', bottleneck: '—',
      result: 'failed: smbclient on desk: NT_STATUS_CONNECTION_REFUSED' })
  })
})

// A run desk and lab joined, stored as tengig.results.get returns it: results is the BenchReport,
// verdict the first client's (desk) as the server stores it.
const report = joinedReport as unknown as BenchReport
const joined: RunEntry = {
  ...ok, id: 7, started: ok.started + 300, kind: 'smb',
  inputs: { system: 'local', kind: 'smb', join: 2, share: 'share', repeats: 1, target: 'hdd-15k-best' },
  results: joinedReport as unknown as Record<string, unknown>,
  verdict: report.clients[0].verdict ?? null,
}

describe('runRow of a multi-client run', () => {
  it('says how many clients ran at once and shows the aggregate: its SMB, its summary, what bounds it', () => {
    const row = runRow(joined)
    expect(row).toMatchObject({ id: 7, kind: 'smb', status: 'success', target: 'hdd-15k-best',
      clients: '2 clients at once (desk, lab)', smbRead: '195.8 MB/s', smbWrite: '188.5 MB/s',
      result: 'loses', margin: 'read -12.3%', bottleneck: 'Link' }) // the aggregate's, not desk's own (-49.5%)
    expect(headlineVerdict(joined)).toBe(report.aggregate_verdict)
  })

  it('leaves a one-client run as it was', () => {
    expect(runRow(ok)).toMatchObject({ clients: '' })
    expect(headlineVerdict(ok)).toBe(ok.verdict)
  })

  it('says so when a multi-client run has no aggregate verdict instead of showing one client\'s', () => {
    const none = { ...joined, results: { ...report, aggregate_verdict: null } as unknown as Record<string, unknown> }
    expect(runRow(none)).toMatchObject({ clients: '2 clients at once (desk, lab)', smbRead: 'not measured', smb: 'not measured / not measured',
      result: 'no aggregate verdict', bottleneck: '—' })
  })

  it('shows a failed multi-client run with its error', () => {
    const failedJoined: RunEntry = { ...joined, status: 'failed', results: null, verdict: null, error: 'desk never joined' }
    expect(runRow(failedJoined)).toMatchObject({ clients: '', smbRead: '—', result: 'failed: desk never joined' })
  })

  it('plots the aggregate of a multi-client run, as its row shows it', () => {
    expect(historyChartData([joined, ok])).toEqual([[ok.started, joined.started], [115.46, 195.85], [114.86, 188.54]])
  })
})

describe('verdictLine', () => {
  const v = ok.verdict!
  const [read, write] = [...v.directions].sort((a, b) => (a.direction < b.direction ? -1 : 1))

  it('says mixed when one direction beats and the other loses, and names each bottleneck when they differ', () => {
    const both = { ...v, directions: [read, { ...write, target_bytes_per_s: 100e6, margin_percent: 14.86, beats_target: true, bottleneck: 'pool' as const }] }
    expect(verdictLine(both)).toEqual({ outcome: 'mixed', result: 'mixed', margin: 'read -48.3%, write +14.9%', bottleneck: 'read Link, write Pool' })
  })

  it('says no target figure when no direction could be judged', () => {
    const unjudged = { ...v, directions: [{ ...read, target_bytes_per_s: null, margin_percent: null, beats_target: null }, write] }
    expect(verdictLine(unjudged)).toMatchObject({ outcome: 'unknown', result: 'no target figure', margin: '—' })
  })
})

describe('historyChartData', () => {
  it('plots successful runs only, oldest first, in MB/s', () => {
    const later = { ...ok, id: 3, started: ok.started + 200 }
    expect(historyChartData([later, failed, ok])).toEqual([
      [ok.started, ok.started + 200], [115.46, 115.46], [114.86, 114.86]])
  })
})

describe('metricRows', () => {
  const cmp: Comparison = {
    a: { id: 1, kind: 'all', status: 'success', started: 0 },
    b: { id: 3, kind: 'all', status: 'success', started: 1 },
    metrics: {
      'clients.0.smb.read.bytes_per_s.median': { a: 115456102.4, b: 230912204.8, delta: 115456102.4, delta_percent: 100, unit: 'B/s' },
      'clients.0.network.0.goodput_bps': { a: 928060664.6, b: 900000000, delta: -28060664.6, delta_percent: -3.02, unit: 'bit/s' },
      'clients.0.network.0.retransmits': { a: 0, b: 4, delta: 4, delta_percent: null, unit: '' },
    },
    only_in_a: [], only_in_b: [], environment: {}, ceilings: [], moved: [],
  }

  it('keeps the headline metrics, formatted in their units with signed deltas', () => {
    expect(metricRows(cmp, true)).toEqual([
      { path: 'clients.0.network.0.goodput_bps', a: '0.93 Gb/s', b: '0.90 Gb/s', delta: '-0.03 Gb/s', percent: '-3.0%', direction: 'down' },
      { path: 'clients.0.smb.read.bytes_per_s.median', a: '115.5 MB/s', b: '230.9 MB/s', delta: '+115.5 MB/s', percent: '+100.0%', direction: 'up' },
    ])
  })

  it('shows every metric on request and says when a percentage cannot exist', () => {
    const rows = metricRows(cmp, false)
    expect(rows).toHaveLength(3)
    expect(rows.find((r) => r.path.endsWith('retransmits'))).toMatchObject({ a: '0', b: '4', delta: '+4', percent: 'n/a (a is 0)' })
  })
})

// "Before and after the new NIC": a second 1 Gb/s port doubled the aggregate's link ceiling, the pool stayed.
describe('which ceiling moved', () => {
  const MB = 1e6
  const cmp: Comparison = {
    a: { id: 1, kind: 'all', status: 'success', started: 0 },
    b: { id: 2, kind: 'all', status: 'success', started: 1 },
    metrics: {}, only_in_a: [], only_in_b: [], environment: {},
    ceilings: [
      { scope: 'aggregate', direction: 'read', component: 'pool', a: 400 * MB, b: 400 * MB, delta_percent: 0, moved: false, bottleneck_a: false, bottleneck_b: false },
      { scope: 'aggregate', direction: 'read', component: 'link', a: 117.7 * MB, b: 235.4 * MB, delta_percent: 100, moved: true, bottleneck_a: true, bottleneck_b: false },
      { scope: 'aggregate', direction: 'read', component: 'smb', a: 110 * MB, b: 220 * MB, delta_percent: 100, moved: true, bottleneck_a: false, bottleneck_b: true },
      { scope: 'desk', direction: 'read', component: 'network', a: null, b: 117 * MB, delta_percent: null, moved: true, bottleneck_a: false, bottleneck_b: false },
    ],
    moved: ['aggregate read: link 117.7 -> 235.4 MB/s (+100.0%), the bottleneck in a only'],
  }

  it('lists the ceilings that moved or bounded a run, with both figures, the change and where the bottleneck was', () => {
    expect(ceilingRows(cmp, true)).toEqual([
      { where: 'aggregate read', component: 'Link', a: '117.7 MB/s', b: '235.4 MB/s', percent: '+100.0%', bottleneck: 'run a only', moved: true, direction: 'up' },
      { where: 'aggregate read', component: 'SMB', a: '110.0 MB/s', b: '220.0 MB/s', percent: '+100.0%', bottleneck: 'run b only', moved: true, direction: 'up' },
      { where: 'desk read', component: 'Network', a: 'absent', b: '117.0 MB/s', percent: 'n/a', bottleneck: '', moved: true, direction: 'same' },
    ])
    expect(ceilingRows(cmp, false).map((r) => r.component)).toEqual(['Pool', 'Link', 'SMB', 'Network'])
  })

  it('says the server\'s lines, or that nothing moved', () => {
    expect(movedLines(cmp)).toEqual(['aggregate read: link 117.7 -> 235.4 MB/s (+100.0%), the bottleneck in a only'])
    expect(movedLines({ ...cmp, moved: [] })).toEqual(['No ceiling moved by 5% or more, and every bottleneck stayed where it was.'])
  })
})
